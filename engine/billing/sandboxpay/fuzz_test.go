package sandboxpay

import "testing"

// FuzzParseForm throws bodies at the page's form reader: it never panics,
// and what it reads came from the body.
func FuzzParseForm(f *testing.F) {
	for _, seed := range []string{"step=card&number=4242+4242+4242+4242&expiry=12+%2F+30&cvc=123", "", "step=%zz",
		"step=saved", "number=1&number=2", "&&&==", "step=card&number=" + string(make([]byte, 40))} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		form, err := ParseForm(body)
		if err != nil {
			return
		}
		if len(form.Step)+len(form.Number)+len(form.Expiry)+len(form.CVC) > len(body) {
			t.Fatalf("read more than the body: %+v from %q", form, body)
		}
	})
}
