package server

import (
	"strconv"
	"strings"
	"testing"

	"glimpse/engine/assets"
)

// TestPageCacheIsBoundedByBytes: 10,000 unique keys (what a client asking
// unique paths produces) never hold more than the cache's byte budget, the
// most recently used pages stay, and a page larger than the budget is not
// kept at all.
func TestPageCacheIsBoundedByBytes(t *testing.T) {
	t.Parallel()
	const budget = 1 << 20
	p := newPageCache(budget)
	body := []byte(strings.Repeat("x", 2000))
	for i := range 10000 {
		p.put("/dashboard/news/"+strconv.Itoa(i), newCachedPage(body))
		if _, n := p.stats(); n > budget {
			t.Fatalf("after %d puts the cache holds %d bytes, over its %d", i+1, n, budget)
		}
	}
	entries, n := p.stats()
	if entries == 0 || n < budget/2 {
		t.Fatalf("cache holds %d entries, %d bytes: it should be near its budget", entries, n)
	}
	if _, ok := p.get("/dashboard/news/0"); ok {
		t.Error("the oldest page is still held")
	}
	if _, ok := p.get("/dashboard/news/9999"); !ok {
		t.Error("the newest page was evicted")
	}

	// A page used recently survives newer puts that evict older ones.
	p = newPageCache(10 * (2000 + 100 + entryOverhead))
	for i := range 10 {
		p.put(strconv.Itoa(i), newCachedPage(body))
	}
	p.get("0")
	for i := 10; i < 15; i++ {
		p.put(strconv.Itoa(i), newCachedPage(body))
	}
	if _, ok := p.get("0"); !ok {
		t.Error("a recently used page was evicted before older ones")
	}
	if _, ok := p.get("1"); ok {
		t.Error("the least recently used page was kept")
	}

	p.put("huge", newCachedPage(make([]byte, 20*2000)))
	if _, ok := p.get("huge"); ok {
		t.Error("a page over the whole budget was kept")
	}
}

// TestPageCacheCountsCompressedBodies: a page's compressed forms are made
// once, kept with it and counted against the byte bound; a page no longer
// held is compressed for the request only.
func TestPageCacheCountsCompressedBodies(t *testing.T) {
	t.Parallel()
	p := newPageCache(1 << 20)
	page := newCachedPage([]byte(strings.Repeat(`{"type":"text","text":"hello"},`, 300)))
	p.put("a", page)
	_, before := p.stats()
	br, err := p.encodedBody("a", page, assets.Brotli)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := p.encodedBody("a", page, assets.Brotli)
	if &br[0] != &again[0] {
		t.Error("the page was compressed twice")
	}
	gz, _ := p.encodedBody("a", page, assets.Gzip)
	if _, after := p.stats(); after != before+len(br)+len(gz) {
		t.Errorf("cache holds %d bytes, want %d", after, before+len(br)+len(gz))
	}
	if _, got, ok := p.lookup("a", assets.Gzip); !ok || &got[0] != &gz[0] {
		t.Error("lookup does not return the kept gzip body")
	}
	if body, _ := p.encodedBody("a", page, assets.Identity); &body[0] != &page.body[0] {
		t.Error("identity is not the body itself")
	}

	// Filling the cache evicts the page with its compressed forms.
	for i := range 600 {
		p.put(strconv.Itoa(i), newCachedPage(make([]byte, 2000)))
	}
	if _, ok := p.get("a"); ok {
		t.Fatal("the page was not evicted")
	}
	_, held := p.stats()
	if held > 1<<20 {
		t.Fatalf("cache holds %d bytes, over its bound", held)
	}
	if _, err := p.encodedBody("a", page, assets.Zstd); err != nil {
		t.Fatal(err)
	}
	if _, n := p.stats(); n != held {
		t.Error("a page no longer held grew the cache")
	}
}
