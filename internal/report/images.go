package report

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"strings"

	json "github.com/goccy/go-json"
)

// index.md shows each chart as a PNG image (plots/<name>.png) drawn from the
// very spec the HTML page draws (plots/<name>.vl.json), by vl-convert: the
// Vega and Vega-Lite of the page's vendored libraries in a renderer that
// needs no browser (vl-convert-python, pinned in requirements.txt). It runs
// in a Python that has it (empties report --python, $EMPTIES_PYTHON,
// ./.venv/bin/python, python3); where none has, or its Vega is not the
// page's, the report is still written, index.md saying the images were not
// made and why, and the HTML page is unchanged.

// ChartImages draws the charts' specs as PNG images; nil draws none.
type ChartImages interface {
	// Draw returns a PNG per spec name, or an error saying why there are
	// none (a sentence a reader of index.md can act on).
	Draw(ctx context.Context, specs map[string][]byte) (map[string][]byte, error)
}

//go:embed vlconvert.py
var vlconvertScript string

// The versions of the vendored chart libraries (assets/vega/README.md), which
// the renderer must draw with.
const vegaVersion, vegaLiteVersion = "6.2.0", "6.4.1"

// VLConvert draws with vl-convert in the Python at its path.
type VLConvert struct{ Python string }

// Draw runs vlconvert.py once for every chart.
func (v VLConvert) Draw(ctx context.Context, specs map[string][]byte) (map[string][]byte, error) {
	raw := map[string]json.RawMessage{}
	for k, s := range specs {
		raw[k] = s
	}
	req, err := json.Marshal(map[string]any{"vega": vegaVersion, "vega_lite": vegaLiteVersion, "specs": raw})
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, v.Python, "-c", vlconvertScript)
	cmd.Stdin = bytes.NewReader(req)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		msg := strings.TrimSpace(stderr.String())
		switch {
		case errors.As(err, &exit) && exit.ExitCode() == 3:
			return nil, fmt.Errorf("%s has no vl-convert (pip install vl-convert-python==1.9.0.post1 into it, or name another Python with --python)", v.Python)
		case errors.As(err, &exit) && exit.ExitCode() == 4:
			return nil, fmt.Errorf("%s: %s (pip install vl-convert-python==1.9.0.post1)", v.Python, msg)
		case errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.As(err, new(*exec.Error)):
			return nil, fmt.Errorf("no Python at %s to run vl-convert (name one with --python or $EMPTIES_PYTHON)", v.Python)
		}
		if i := strings.LastIndex(msg, "\n"); i >= 0 {
			msg = msg[i+1:]
		}
		return nil, fmt.Errorf("vl-convert in %s failed: %s", v.Python, msg)
	}
	var out map[string]string
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return nil, fmt.Errorf("vl-convert in %s: %w", v.Python, err)
	}
	imgs := map[string][]byte{}
	for k, s := range out {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
			return nil, fmt.Errorf("vl-convert in %s: chart %s is not a PNG image", v.Python, k)
		}
		imgs[k] = b
	}
	return imgs, nil
}
