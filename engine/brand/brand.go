// Package brand holds the brands Glimpse is sold under (the default and the
// partner brands _x_ and _y_): their names, bundles, themes and copy. Brands
// ship in content/brands and are read from memory on the hot path; editors'
// published copy comes from the database and is layered over them.
package brand

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"sort"
	"strings"
	"sync/atomic"

	"glimpse/engine/ui"
)

// DefaultKey is the brand used when nothing else selects one.
const DefaultKey = "default"

// Brand is one brand's data.
type Brand struct {
	Key          string            `json:"key"`
	Name         string            `json:"name"`
	Tagline      string            `json:"tagline"`
	Bundle       string            `json:"bundle"`
	SupportEmail string            `json:"supportEmail"`
	Logo         ui.ImageRef       `json:"logo"`
	Theme        map[string]string `json:"theme"`
	// Copy maps copy keys ("signIn.headline") to text.
	Copy map[string]string `json:"copy"`
}

// UI returns the brand as the envelope's meta carries it.
func (b Brand) UI() ui.Brand {
	logo := b.Logo
	return ui.Brand{Key: b.Key, Name: b.Name, Tagline: b.Tagline, Logo: &logo,
		SupportEmail: b.SupportEmail, Theme: b.Theme}
}

// Copy resolves copy keys for one brand: the brand's published edits, its
// shipped copy, then the default brand's edits and copy.
type Copy struct {
	layers []map[string]string
	seen   func(key string)
}

// Layered returns the copy with over consulted first (an experiment's
// variant texts for one subscriber). seen, when set, is told every key T
// resolves, so the caller learns which keys a composed screen showed.
func (c Copy) Layered(over map[string]string, seen func(key string)) Copy {
	layers := make([]map[string]string, 0, len(c.layers)+1)
	return Copy{layers: append(append(layers, over), c.layers...), seen: seen}
}

// T returns the text for key. A key missing everywhere returns the key itself
// so the gap is visible rather than blank; a test asserts that every key the
// screens use exists in the default brand.
func (c Copy) T(key string) string {
	if c.seen != nil {
		c.seen(key)
	}
	for _, l := range c.layers {
		if v, ok := l[key]; ok {
			return v
		}
	}
	return key
}

// Has reports whether key resolves to real copy.
func (c Copy) Has(key string) bool {
	for _, l := range c.layers {
		if _, ok := l[key]; ok {
			return true
		}
	}
	return false
}

// Registry holds the brands in memory and picks one per request.
type Registry struct {
	brands    atomic.Pointer[map[string]Brand]
	overrides atomic.Pointer[map[string]map[string]string]
	hosts     map[string]string
	version   atomic.Uint64
}

// Version changes whenever the brands in memory change; caches of composed
// screens include it in their keys.
func (r *Registry) Version() uint64 { return r.version.Load() }

// NewRegistry returns a registry with the given host-name → brand-key map.
func NewRegistry(hosts map[string]string) *Registry {
	r := &Registry{hosts: hosts}
	empty := map[string]Brand{}
	r.brands.Store(&empty)
	return r
}

// Set replaces the brands held in memory.
func (r *Registry) Set(brands []Brand) {
	m := make(map[string]Brand, len(brands))
	for _, b := range brands {
		m[b.Key] = b
	}
	r.brands.Store(&m)
	r.version.Add(1)
}

// Get returns a brand by key, or the default brand.
func (r *Registry) Get(key string) Brand {
	m := *r.brands.Load()
	if b, ok := m[key]; ok {
		return b
	}
	return m[DefaultKey]
}

// ForHost picks the brand for a request's host (with or without a port).
// The port never decides: the hosts are names without one
// (GLIMPSE_BRAND_HOSTS refuses an entry with a port at start).
func (r *Registry) ForHost(host string) Brand {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return r.Get(r.hosts[strings.ToLower(host)])
}

// HostMapped reports whether a host name has a brand of its own.
func (r *Registry) HostMapped(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	_, ok := r.hosts[strings.ToLower(host)]
	return ok
}

// Keys lists the brand keys, sorted.
func (r *Registry) Keys() []string {
	m := *r.brands.Load()
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Copy returns the copy resolver of a brand.
func (r *Registry) Copy(b Brand) Copy {
	var edits map[string]map[string]string
	if o := r.overrides.Load(); o != nil {
		edits = *o
	}
	return Copy{layers: []map[string]string{edits[b.Key], b.Copy, edits[DefaultKey], r.Get(DefaultKey).Copy}}
}

// SetOverrides installs editors' published copy (brand → key → text); the
// version changes so cached screens are composed again.
func (r *Registry) SetOverrides(o map[string]map[string]string) {
	r.overrides.Store(&o)
	r.version.Add(1)
}

// FromPlanCode returns the brand key a plan code belongs to: plan codes carry
// _x_ or _y_ for the partner brands.
func FromPlanCode(planCode string) string {
	switch {
	case strings.Contains(planCode, "_x_"):
		return "_x_"
	case strings.Contains(planCode, "_y_"):
		return "_y_"
	}
	return DefaultKey
}

// ReadShipped reads brands/<key>.json files from fsys.
func ReadShipped(fsys fs.FS) ([]Brand, error) {
	paths, err := fs.Glob(fsys, "brands/*.json")
	if err != nil {
		return nil, fmt.Errorf("list brand seeds: %w", err)
	}
	var out []Brand
	for _, p := range paths {
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		var br Brand
		if err := json.Unmarshal(b, &br); err != nil {
			return nil, fmt.Errorf("parse %s: %w", p, err)
		}
		if br.Key == "" || br.Name == "" || br.Bundle == "" {
			return nil, fmt.Errorf("%s: key, name and bundle are required", p)
		}
		out = append(out, br)
	}
	return out, nil
}

// Install puts the shipped brands into the registry. The files in
// content/brands are the source at every start, so a copy key or a theme
// colour added in a new release reaches every existing database; what
// editors publish lives apart (SetOverrides) and is layered on top.
func (r *Registry) Install(shipped []Brand) error {
	for _, b := range shipped {
		if b.Key == DefaultKey {
			r.Set(shipped)
			return nil
		}
	}
	return errors.New("brands: the default brand is missing")
}
