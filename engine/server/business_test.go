package server_test

import (
	"testing"

	"glimpse/engine/metrics"
	"glimpse/engine/server"
)

// TestBusinessMetricsCounted: with the business metrics on, a refused
// sign-in is counted by its reason, and screen requests are counted as page
// cache lookups, hits once the page is kept.
func TestBusinessMetricsCounted(t *testing.T) {
	b := metrics.NewBusiness(nil)
	h := newHarnessDeps(t, func(d *server.Deps) { d.Business = b })
	h.subscriber("counted@example.com", "correct horse battery staple")
	if r := h.signIn("counted@example.com", "wrong password entirely"); r.status < 400 {
		t.Fatalf("a wrong password signed in: %d", r.status)
	}
	for range 3 {
		h.screen("/sign-in")
	}
	reg, err := metrics.NewRegistry("test", b)
	if err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			key := f.GetName()
			for _, l := range m.GetLabel() {
				key += " " + l.GetName() + "=" + l.GetValue()
			}
			got[key] = m.GetCounter().GetValue()
		}
	}
	if n := got["glimpse_sign_in_failures_total reason=invalid_credential"]; n != 1 {
		t.Errorf("invalid credential failures: %v, want 1", n)
	}
	hits, misses := got["glimpse_page_cache_lookups_total result=hit"], got["glimpse_page_cache_lookups_total result=miss"]
	if hits < 1 || hits+misses < 3 {
		t.Errorf("page cache lookups: %v hits, %v misses; want the repeated sign-in screen found", hits, misses)
	}
}
