package numfmt

import "testing"

// Numbers read as what they are: a share above 0 is never "0%", below 1 never
// "100%", the Wilson macro's float noise at the ends is 0 or 1, no exponent.
func TestFormats(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{
		{0, "0%"}, {1.735e-18, "0%"}, {1, "100%"}, {1 - 1e-13, "100%"}, {0.5, "50%"}, {0.123456, "12.3%"},
		{0.0345, "3.5%"}, {0.001, "0.10%"}, {0.00104, "0.10%"}, {0.0099, "0.99%"}, {0.000352, "0.035%"}, {3.5e-6, "0.00035%"},
		{0.9996, "99.96%"}, {0.99999, "99.999%"}, {0.9999999, ">99.9999%"}, {-0.05, "-5%"}, {0.95, "95%"},
	} {
		if got := Percent(c.x); got != c.want {
			t.Errorf("Percent(%v) = %q, want %q", c.x, got, c.want)
		}
	}
	for _, c := range []struct {
		x    float64
		want string
	}{{0, "0"}, {1234567, "1,234,567"}, {41.2937, "41.29"}, {0.33333, "0.3333"}, {1e-7, "1e-07"}, {-2.5, "-2.5"}, {2.5e9, "2,500,000,000"}} {
		if got := Number(c.x); got != c.want {
			t.Errorf("Number(%v) = %q, want %q", c.x, got, c.want)
		}
	}
	for _, c := range []struct {
		x    float64
		want string
	}{{41.29, "+41.29 pp"}, {-3.2, "−3.2 pp"}, {0, "0 pp"}} {
		if got := PPSigned(c.x); got != c.want {
			t.Errorf("PPSigned(%v) = %q, want %q", c.x, got, c.want)
		}
	}
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {51006, "51,006"}, {-1234, "-1,234"}} {
		if got := Count(c.n); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0 rows"}, {1, "1 row"}, {2, "2 rows"}, {1265, "1,265 rows"}} {
		if got := Plural(c.n, "row", "rows"); got != c.want {
			t.Errorf("Plural(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	for _, c := range []struct {
		n         int64
		functions string
		want      string
	}{{0, "", "none"}, {1, "bash", "1: bash"}, {2, "bash, python", "2: bash, python"}, {1, "", "1"}} {
		if got := ToolCalls(c.n, c.functions); got != c.want {
			t.Errorf("ToolCalls(%d, %q) = %q, want %q", c.n, c.functions, got, c.want)
		}
	}
}
