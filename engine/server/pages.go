package server

import (
	"container/list"
	"hash/fnv"
	"sync"

	"glimpse/engine/assets"
)

// pageCache keeps whole encoded envelopes by a key that names everything
// the page depends on, so a repeated screen request skips composing and
// encoding. A kept envelope is the same bytes for every request: the
// per-request parts of an answer (the CSRF token, the server time) travel in
// headers (sendScreen), so each page is also kept compressed, once per
// encoding, made on first use. Keys include the brands' and the content's
// versions, so edited copy is never served stale; entries of old versions
// simply age out. It is a least-recently-used cache bounded by bytes (keys,
// bodies and their compressed forms), because keys are partly chosen by
// clients: a bound by count let unique paths grow memory without limit.
type pageCache struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	order    *list.List // of *pageEntry, most recently used first
	m        map[string]*list.Element
	// hits and misses count lookups, for the page cache metrics (read at
	// scrape time: the screen path only adds one under the lock it holds).
	hits, misses uint64
}

type pageEntry struct {
	key  string
	page *cachedPage
}

// entryOverhead approximates what an entry costs beyond its key and body
// (map slot, list element, headers), so tiny pages are not counted as free.
const entryOverhead = 128

// defaultPageCacheBytes bounds the page cache: every brand's content pages
// and a few thousand subscribers' home screens fit many times over.
const defaultPageCacheBytes = 32 << 20

// size is guarded by pageCache.mu (the encodings grow under it).
func (e *pageEntry) size() int {
	n := len(e.key) + len(e.page.body) + entryOverhead
	for _, b := range e.page.encoded {
		n += len(b)
	}
	return n
}

// cachedPage is a whole envelope, its ETag per encoding, and its compressed
// forms. body and tags never change; encoded is written under pageCache.mu.
type cachedPage struct {
	body []byte
	hash uint64
	tags [assets.NumEncodings]string
	// encoded holds the compressed bodies made so far (encoded[assets.Identity]
	// stays nil).
	encoded [assets.NumEncodings][]byte
	// making serialises compressing, so a burst of first requests compresses
	// once.
	making sync.Mutex
}

func newCachedPage(body []byte) *cachedPage {
	h := fnv.New64a()
	h.Write(body)
	p := &cachedPage{body: body, hash: h.Sum64()}
	for e := range assets.NumEncodings {
		p.tags[e] = assets.ETag(p.hash, e)
	}
	return p
}

func newPageCache(maxBytes int) *pageCache {
	return &pageCache{maxBytes: maxBytes, order: list.New(), m: map[string]*list.Element{}}
}

func (p *pageCache) get(key string) (*cachedPage, bool) {
	page, _, ok := p.lookup(key, assets.Identity)
	return page, ok
}

// lookup returns the page held under key and, when already made, its body
// in encoding e (nil otherwise), under one lock.
func (p *pageCache) lookup(key string, e assets.Encoding) (*cachedPage, []byte, bool) {
	if key == "" {
		return nil, nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	el, ok := p.m[key]
	if !ok {
		p.misses++
		return nil, nil, false
	}
	p.hits++
	p.order.MoveToFront(el)
	page := el.Value.(*pageEntry).page
	if e == assets.Identity {
		return page, page.body, true
	}
	return page, page.encoded[e], true
}

func (p *pageCache) put(key string, page *cachedPage) {
	e := &pageEntry{key: key, page: page}
	if key == "" || e.size() > p.maxBytes {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if el, ok := p.m[key]; ok {
		p.bytes -= el.Value.(*pageEntry).size()
		el.Value = e
		p.order.MoveToFront(el)
	} else {
		p.m[key] = p.order.PushFront(e)
	}
	p.bytes += e.size()
	p.evict()
}

// evict drops least recently used entries until the cache is within its
// bound. Called with p.mu held.
func (p *pageCache) evict() {
	for p.bytes > p.maxBytes {
		last := p.order.Back()
		old := last.Value.(*pageEntry)
		p.order.Remove(last)
		delete(p.m, old.key)
		p.bytes -= old.size()
	}
}

// encodedBody returns the page's body in encoding e, compressing it on first
// use and keeping the result in the page (counted against the cache's bound
// while the page is held under key). A page no longer held is compressed for
// this request only.
func (p *pageCache) encodedBody(key string, page *cachedPage, e assets.Encoding) ([]byte, error) {
	if e == assets.Identity {
		return page.body, nil
	}
	if b := p.peekEncoded(page, e); b != nil {
		return b, nil
	}
	page.making.Lock()
	defer page.making.Unlock()
	if b := p.peekEncoded(page, e); b != nil {
		return b, nil
	}
	b, err := assets.Compress(e, page.body)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if el, ok := p.m[key]; ok && el.Value.(*pageEntry).page == page {
		page.encoded[e] = b
		p.bytes += len(b)
		p.evict()
	}
	return b, nil
}

func (p *pageCache) peekEncoded(page *cachedPage, e assets.Encoding) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return page.encoded[e]
}

// stats reports the entries and bytes held, for tests and diagnostics.
func (p *pageCache) stats() (entries, bytes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.m), p.bytes
}

// counts reports the lookups that found a page and those that did not,
// and what stats reports, for the metrics.
func (p *pageCache) counts() (hits, misses uint64, entries, bytes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hits, p.misses, len(p.m), p.bytes
}

// brandCache keeps each brand's meta encoding for the brands' version.
type brandCache struct {
	mu      sync.RWMutex
	version uint64
	m       map[string][]byte
}

func (c *brandCache) get(key string, version uint64, encode func() ([]byte, error)) ([]byte, error) {
	c.mu.RLock()
	b, ok := c.m[key]
	fresh := c.version == version
	c.mu.RUnlock()
	if ok && fresh {
		return b, nil
	}
	b, err := encode()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != version || c.m == nil {
		c.version, c.m = version, map[string][]byte{}
	}
	c.m[key] = b
	return b, nil
}
