package evallog

import json "github.com/goccy/go-json"

// InputRaws returns a model event's input messages as raw JSON, each whole
// (input_refs ranges of the message pool expanded as InputMessages expands
// them), for a reader that shows a message with every field: empties
// serve's sample page. The raw bytes share the sample's; attachment refs in
// them are not resolved (Resolve does that per string).
func (d *DecodedSample) InputRaws(e *Event) ([]json.RawMessage, error) {
	return d.inputRaws(e)
}
