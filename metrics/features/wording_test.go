package features

import (
	"strings"
	"testing"
)

func TestWording(t *testing.T) {
	tests := []struct {
		text, anchor, want string
	}{
		{"The sale starts June 3 and ends June 7.", "d-06-03", "June 3"},
		{"The sale starts June 3 and ends June 7.", "d-06-07", "June 7"},
		{"Your order ships on 14 June 2024.", "d2024-06-14", "14 June 2024"},
		{"It costs $49.99 per seat.", "n49.99", "$49.99"},
		{"Tickets are €25.50 each.", "n25.5", "€25.50"},
		{"Revenue rose 12% in Q3.", "n12", "12%"},
		{"Revenue rose 12% in Q3.", "q3", "Q3"},
		{"Revenue rose 12% in the third quarter.", "q3", "third quarter"},
		{"We sold 4.5 million units.", "n4500000", "4.5 million"},
		{"Board at 3 pm sharp.", "t15:00", "3 pm"},
		{"Flight UA-1542 is delayed.", "n1542", "UA-1542"},
		{"Your code is 8GFLCX.", "c8gflcx", "8GFLCX"},
		{"twenty-five guests", "n25", "twenty-five"},
		// Not stated in the text (shortened, or from elsewhere): described.
		{"The sale starts…", "d-06-03", "June 3"},
		{"", "n4500000", "4,500,000"},
	}
	for _, tt := range tests {
		if got := Wording(tt.text, tt.anchor); got != tt.want {
			t.Errorf("Wording(%q, %q) = %q, want %q", tt.text, tt.anchor, got, tt.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct{ anchor, want string }{
		{"n25.5", "25.5"},
		{"n49.99", "49.99"},
		{"n4500000", "4,500,000"},
		{"n-1234.5", "-1,234.5"},
		{"n999", "999"},
		{"d2024-06-03", "June 3, 2024"},
		{"d-06-03", "June 3"},
		{"d-02-29", "February 29"},
		{"t15:00", "15:00"},
		{"q3", "Q3"},
		{"c8gflcx", "8GFLCX"},
		{"x1.2.3", "1.2.3"},
		{"", ""},
		{"revenue", "revenue"},
		{"d-13-40", "d-13-40"},
	}
	for _, tt := range tests {
		if got := Describe(tt.anchor); got != tt.want {
			t.Errorf("Describe(%q) = %q, want %q", tt.anchor, got, tt.want)
		}
	}
}

// FuzzWording: every anchor a text states is found in it, as a piece of
// the text.
func FuzzWording(f *testing.F) {
	for _, text := range []string{
		"On June 14, 2024 at 8:05 am we shipped 1,000 units (SKU-1001) for $4.5M, up 12% in Q3.",
		"Gate B12 opens at 15:00; twenty five seats left; version 1.2.3.",
		"3rd of March 2023, ¥1,200 or 30‰",
	} {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, a := range Anchors(Tokenize(text)) {
			if w := Wording(text, a); w == "" || !strings.Contains(text, w) {
				t.Errorf("%q: anchor %s reads as %q, not a piece of the text", text, a, w)
			}
		}
	})
}
