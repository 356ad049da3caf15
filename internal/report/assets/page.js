// The report page's own script: sortable table columns, the filter boxes,
// wide tables' intervals folded under their estimates, and the charts
// (Vega-Lite specs drawn by the vendored vega-embed). It
// fetches nothing; the page's Content-Security-Policy allows only the
// scripts inlined in it, by hash, and no eval (charts use the interpreter).
(function () {
  'use strict';

  function sortKey(td, numeric) {
    if (!numeric) {
      return td.textContent.trim().toLowerCase();
    }
    var v = td.getAttribute('data-v');
    return v === null || v === '' ? null : parseFloat(v);
  }

  function sortTable(table, col, th) {
    var descending = th.getAttribute('aria-sort') !== 'descending';
    var heads = table.tHead.rows[0].cells;
    for (var i = 0; i < heads.length; i++) {
      heads[i].removeAttribute('aria-sort');
    }
    th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
    var numeric = th.classList.contains('num');
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows).map(function (r, i) {
      return { row: r, key: sortKey(r.cells[col], numeric), i: i };
    });
    rows.sort(function (a, b) {
      if (a.key === b.key) { return a.i - b.i; }
      if (a.key === null) { return 1; } // empty cells last either way
      if (b.key === null) { return -1; }
      var c = a.key < b.key ? -1 : 1;
      return descending ? -c : c;
    });
    rows.forEach(function (r) { body.appendChild(r.row); });
  }

  document.querySelectorAll('table.data').forEach(function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      th.tabIndex = 0;
      th.addEventListener('click', function () { sortTable(table, col, th); });
      th.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sortTable(table, col, th); }
      });
    });
  });

  document.querySelectorAll('input.filter').forEach(function (input) {
    var table = input.parentNode.querySelector('table.data');
    input.addEventListener('input', function () {
      var q = input.value.trim().toLowerCase();
      Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
        r.hidden = q !== '' && r.textContent.toLowerCase().indexOf(q) < 0;
      });
    });
  });

  // A table wider than its box lets its intervals go under their estimates
  // (class tight: the browser then wraps only the widest ones), so that it
  // fits where that is enough; a table that fits is left as it is. Measured
  // again when the window changes width and when a folded table opens.
  // Every table is unmarked first and measured after, so that the page is
  // laid out once, not once a table.
  function fit() {
    var boxes = Array.prototype.filter.call(document.querySelectorAll('div.scroll'), function (box) {
      return box.querySelector('table');
    });
    boxes.forEach(function (box) { box.querySelector('table').classList.remove('tight'); });
    boxes.filter(function (box) { return box.scrollWidth > box.clientWidth; }).forEach(function (box) {
      box.querySelector('table').classList.add('tight');
    });
  }
  fit();
  window.addEventListener('resize', fit);
  document.querySelectorAll('details').forEach(function (d) { d.addEventListener('toggle', fit); });

  var root = document.documentElement;
  var charts = document.querySelectorAll('div.vl');
  if (typeof vegaEmbed !== 'function') {
    root.setAttribute('data-charts', charts.length ? 'no-library' : 'ready');
    return;
  }
  var drawn = Array.prototype.map.call(charts, function (div) {
    var spec = JSON.parse(document.getElementById(div.getAttribute('data-spec')).textContent);
    return vegaEmbed(div, spec, { renderer: 'svg', actions: false, ast: true }).catch(function (err) {
      div.textContent = 'This chart could not be drawn: ' + err;
      throw err;
    });
  });
  Promise.allSettled(drawn).then(function (results) {
    var failed = results.filter(function (r) { return r.status !== 'fulfilled'; }).length;
    root.setAttribute('data-charts', failed ? 'failed' : 'ready');
  });
})();
