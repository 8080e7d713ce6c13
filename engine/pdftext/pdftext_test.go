package pdftext

import "testing"

func TestExtractRefusesWhatIsNotAGopdfPDF(t *testing.T) {
	t.Parallel()
	for name, pdf := range map[string]string{
		"empty":        "",
		"no page tree": "%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n",
		"page without contents": "%PDF-1.7\n1 0 obj\n<< /Type /Pages /Kids [2 0 R] >>\nendobj\n" +
			"2 0 obj\n<< /Type /Page >>\nendobj\n",
	} {
		if _, err := Extract([]byte(pdf)); err == nil {
			t.Errorf("%s: extracted without an error", name)
		}
	}
}
