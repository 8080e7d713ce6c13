package server

import (
	"hash/fnv"
	"sync"
)

// pageCache keeps encoded pages (envelopes without their meta) by a key that
// names everything the page depends on, so a repeated screen request skips
// composing and encoding. Keys include the brands' version, so edited copy is
// never served stale. It is bounded: when full it starts over, which costs
// one composition per key and never serves anything wrong.
type pageCache struct {
	mu  sync.RWMutex
	max int
	m   map[string]encodedPage
}

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

func newPageCache(max int) *pageCache { return &pageCache{max: max, m: map[string]encodedPage{}} }

func (p *pageCache) get(key string) (encodedPage, bool) {
	if key == "" {
		return encodedPage{}, false
	}
	p.mu.RLock()
	e, ok := p.m[key]
	p.mu.RUnlock()
	return e, ok
}

func (p *pageCache) put(key string, page encodedPage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.m) >= p.max {
		p.m = map[string]encodedPage{}
	}
	p.m[key] = page
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
