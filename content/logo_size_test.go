package content_test

import (
	"encoding/json"
	"encoding/xml"
	"io/fs"
	"strconv"
	"testing"

	"glimpse/content"
)

// A brand's logo states its own size (logo.intrinsic) so pages keep its room
// before it loads; the stated size must be the SVG's, or the logo would be
// drawn squashed.
func TestBrandLogoSizeIsTheSVGs(t *testing.T) {
	files, err := fs.Glob(content.Brands, "brands/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no brands: %v", err)
	}
	for _, name := range files {
		raw, err := fs.ReadFile(content.Brands, name)
		if err != nil {
			t.Fatal(err)
		}
		var brand struct {
			Logo struct {
				Src       string `json:"src"`
				Intrinsic *struct {
					Width  int `json:"width"`
					Height int `json:"height"`
				} `json:"intrinsic"`
			} `json:"logo"`
		}
		if err := json.Unmarshal(raw, &brand); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if brand.Logo.Intrinsic == nil {
			t.Errorf("%s: the logo has no intrinsic size", name)
			continue
		}
		svg, err := fs.ReadFile(content.Static, brand.Logo.Src[1:])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var root struct {
			Width  string `xml:"width,attr"`
			Height string `xml:"height,attr"`
		}
		if err := xml.Unmarshal(svg, &root); err != nil {
			t.Fatalf("%s: %v", brand.Logo.Src, err)
		}
		w, _ := strconv.Atoi(root.Width)
		h, _ := strconv.Atoi(root.Height)
		if w != brand.Logo.Intrinsic.Width || h != brand.Logo.Intrinsic.Height {
			t.Errorf("%s: logo.intrinsic is %dx%d, %s is %sx%s", name, brand.Logo.Intrinsic.Width,
				brand.Logo.Intrinsic.Height, brand.Logo.Src, root.Width, root.Height)
		}
	}
}
