package server

import (
	"container/list"
	"hash/fnv"
	"sync"
)

// pageCache keeps encoded pages (envelopes without their meta) by a key that
// names everything the page depends on, so a repeated screen request skips
// composing and encoding. Keys include the brands' and the content's
// versions, so edited copy is never served stale; entries of old versions
// simply age out. It is a least-recently-used cache bounded by bytes (keys
// and bodies), because keys are partly chosen by clients: a bound by count
// let unique paths grow memory without limit.
type pageCache struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	order    *list.List // of *pageEntry, most recently used first
	m        map[string]*list.Element
}

type pageEntry struct {
	key  string
	page encodedPage
}

// entryOverhead approximates what an entry costs beyond its key and body
// (map slot, list element, headers), so tiny pages are not counted as free.
const entryOverhead = 128

// defaultPageCacheBytes bounds the page cache: every brand's content pages
// and a few thousand subscribers' home screens fit many times over.
const defaultPageCacheBytes = 32 << 20

func (e *pageEntry) size() int { return len(e.key) + len(e.page.body) + entryOverhead }

// encodedPage is a page's bytes with their hash, kept for ETags.
type encodedPage struct {
	body []byte
	hash uint64
}

func newEncodedPage(body []byte) encodedPage {
	h := fnv.New64a()
	h.Write(body)
	return encodedPage{body: body, hash: h.Sum64()}
}

func newPageCache(maxBytes int) *pageCache {
	return &pageCache{maxBytes: maxBytes, order: list.New(), m: map[string]*list.Element{}}
}

func (p *pageCache) get(key string) (encodedPage, bool) {
	if key == "" {
		return encodedPage{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	el, ok := p.m[key]
	if !ok {
		return encodedPage{}, false
	}
	p.order.MoveToFront(el)
	return el.Value.(*pageEntry).page, true
}

func (p *pageCache) put(key string, page encodedPage) {
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
	for p.bytes > p.maxBytes {
		last := p.order.Back()
		old := last.Value.(*pageEntry)
		p.order.Remove(last)
		delete(p.m, old.key)
		p.bytes -= old.size()
	}
}

// stats reports the entries and bytes held, for tests and diagnostics.
func (p *pageCache) stats() (entries, bytes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.m), p.bytes
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
