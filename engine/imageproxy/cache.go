package imageproxy

import (
	"container/list"
	"sync"
	"time"
)

// cache holds fetched images in memory, bounded by total body bytes and
// evicting the least recently used first, so popular pictures stay while
// memory use has a hard ceiling.
type cache struct {
	maxBytes int64
	ttl      time.Duration
	now      func() time.Time

	mu      sync.Mutex
	bytes   int64
	order   *list.List // front is most recently used; values are *cacheEntry
	entries map[string]*list.Element
}

type cacheEntry struct {
	key     string
	image   Image
	expires time.Time
}

func newCache(maxBytes int64, ttl time.Duration, now func() time.Time) *cache {
	return &cache{
		maxBytes: maxBytes,
		ttl:      ttl,
		now:      now,
		order:    list.New(),
		entries:  map[string]*list.Element{},
	}
}

// get returns the fresh image for key, dropping it if it has expired.
func (c *cache) get(key string) (Image, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	element, ok := c.entries[key]
	if !ok {
		return Image{}, false
	}
	entry := element.Value.(*cacheEntry)
	if !c.now().Before(entry.expires) {
		c.remove(element)
		return Image{}, false
	}
	c.order.MoveToFront(element)
	return entry.image, true
}

// add stores image under key and evicts the least recently used entries
// until the total fits. An image larger than the whole cache is not kept.
func (c *cache) add(key string, image Image) {
	size := int64(len(image.Body))
	if size > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if element, ok := c.entries[key]; ok {
		c.remove(element)
	}
	c.entries[key] = c.order.PushFront(&cacheEntry{key: key, image: image, expires: c.now().Add(c.ttl)})
	c.bytes += size
	for c.bytes > c.maxBytes {
		c.remove(c.order.Back())
	}
}

// remove drops element; the caller holds c.mu.
func (c *cache) remove(element *list.Element) {
	entry := c.order.Remove(element).(*cacheEntry)
	delete(c.entries, entry.key)
	c.bytes -= int64(len(entry.image.Body))
}
