-- output: inspect_view
-- kind: macro
-- measure: Real examples (pre-registration §4 "Exploration first: rough rates and real examples"): where a sample opens in inspect view, for every table of examples
-- needs:
--
-- From the pinned inspect_ai 0.3.285 (_view/view.py: port 7575 on 127.0.0.1; the viewer's hash
-- router in _view/dist/assets/index.js, region src/app/routing/url.ts, logSamplesUrl:
-- #/logs/<log path>/samples/sample/<sample id>/<epoch>/, the log path relative to --log-dir as
-- directoryRelativeUrl makes it, each segment URI-encoded): inspect_view_command(path) serves the
-- log file's folder (the path single-quoted for a POSIX shell) and inspect_view_url(path,
-- sample_id, epoch) opens the sample in it.
CREATE OR REPLACE MACRO inspect_view_command(path) AS
  'inspect view --log-dir ''' || replace(parse_dirpath(path), '''', '''\''''') || '''';

CREATE OR REPLACE MACRO inspect_view_url(path, sample_id, epoch) AS
  'http://127.0.0.1:7575/#/logs/' || url_encode(parse_filename(path)) || '/samples/sample/'
    || url_encode(sample_id) || '/' || epoch || '/';
