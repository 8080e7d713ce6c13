package lesson

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
)

// Cache holds the rendered PDF of each document, keyed by slug, and renders
// a document again only when its content changes, so a download is served
// from memory. It is safe for concurrent use; concurrent Gets of the same
// document wait for one render instead of each rendering.
type Cache struct {
	render  func(Doc) ([]byte, error)
	mu      sync.Mutex
	entries map[string]*entry
	renders atomic.Int64
}

// entry is one document's cached PDF. Its mutex is held while it renders.
type entry struct {
	mu   sync.Mutex
	hash [sha256.Size]byte
	pdf  []byte
	etag string
}

// NewCache returns an empty cache that renders with render, usually
// func(d Doc) ([]byte, error) { return Render(d, brand) }.
func NewCache(render func(Doc) ([]byte, error)) *Cache {
	return &Cache{render: render, entries: map[string]*entry{}}
}

// Get returns d's PDF and its ETag (a quoted hash of the PDF), rendering it
// when the cache has none for d's slug or has one made from different
// content. A failed render is not cached.
func (c *Cache) Get(d Doc) ([]byte, string, error) {
	hash, err := contentHash(d)
	if err != nil {
		return nil, "", err
	}
	c.mu.Lock()
	e, ok := c.entries[d.Slug]
	if !ok {
		e = &entry{}
		c.entries[d.Slug] = e
	}
	c.mu.Unlock()

	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pdf != nil && e.hash == hash {
		return e.pdf, e.etag, nil
	}
	c.renders.Add(1)
	pdf, err := c.render(d)
	if err != nil {
		return nil, "", fmt.Errorf("render %s: %w", d.Slug, err)
	}
	sum := sha256.Sum256(pdf)
	e.hash, e.pdf, e.etag = hash, pdf, `"`+hex.EncodeToString(sum[:16])+`"`
	return e.pdf, e.etag, nil
}

// Renders is how many times the cache has called its render function.
func (c *Cache) Renders() int { return int(c.renders.Load()) }

// contentHash identifies what a document's PDF is drawn from: its number,
// title, subtitle and body.
func contentHash(d Doc) ([sha256.Size]byte, error) {
	data, err := json.Marshal(struct {
		Number          int
		Title, Subtitle string
		Body            any
	}{d.Number, d.Title, d.Subtitle, d.Body})
	if err != nil {
		return [sha256.Size]byte{}, fmt.Errorf("hash %s: %w", d.Slug, err)
	}
	return sha256.Sum256(data), nil
}
