package report

import (
	"strings"
	"testing"
)

// A name in a table breaks after a slash, a space and a provider's
// namespace dot (bedrock's us.anthropic.…), and nowhere else: not at a
// version's dot, a hyphen, an underscore or a dot at either end.
func TestIdentifierBreaks(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"inspect_evals/gpqa_diamond", "inspect_evals/|gpqa_diamond"},
		{"bedrock/us.anthropic.claude-sonnet-4-20250514-v1:0", "bedrock/|us.|anthropic.|claude-sonnet-4-20250514-v1:0"},
		{"openai/gpt-3.5-turbo", "openai/|gpt-3.5-turbo"},
		{"claude-3.7-sonnet", "claude-3.7-sonnet"},
		{"a.b", "a.|b"},
		{".hidden", ".hidden"},
		{"trailing.", "trailing."},
		{"x.1", "x.1"},
		{"/abs/path.eval", "/|abs/|path.|eval"},
	} {
		got := strings.Join(identifierPieces(c.in), "|")
		if got != c.want {
			t.Errorf("%q breaks as %q, want %q", c.in, got, c.want)
		}
	}
	if got, want := identifierHTML("bedrock/us.anthropic"), `<span class="w">bedrock/</span><wbr><span class="w">us.</span><wbr><span class="w">anthropic</span>`; got != want {
		t.Errorf("identifierHTML = %s, want %s", got, want)
	}
}
