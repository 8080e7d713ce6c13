// Package brand holds the brands Glimpse is sold under (the default and the
// partner brands _x_ and _y_): their names, bundles, themes and copy. Brands
// are data in MongoDB, seeded from content/brands, and read from memory on
// the hot path.
package brand

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"sort"
	"strings"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/engine/ui"
)

// Collection is where brands are stored.
const Collection = "brands"

// DefaultKey is the brand used when nothing else selects one.
const DefaultKey = "default"

// Brand is one brand's data.
type Brand struct {
	Key          string            `bson:"_id" json:"key"`
	Name         string            `bson:"name" json:"name"`
	Tagline      string            `bson:"tagline" json:"tagline"`
	Bundle       string            `bson:"bundle" json:"bundle"`
	SupportEmail string            `bson:"supportEmail" json:"supportEmail"`
	Logo         ui.ImageRef       `bson:"logo" json:"logo"`
	Theme        map[string]string `bson:"theme" json:"theme"`
	// Copy maps copy keys ("signIn.headline") to text. MongoDB documents
	// cannot have dotted keys on FerretDB, so it is stored as a list.
	Copy map[string]string `bson:"-" json:"copy"`
}

// stored is a Brand as it is kept in the database.
type stored struct {
	Brand `bson:",inline"`
	Copy  []copyEntry `bson:"copy"`
}

type copyEntry struct {
	Key  string `bson:"k"`
	Text string `bson:"t"`
}

func toStored(b Brand) stored {
	s := stored{Brand: b, Copy: make([]copyEntry, 0, len(b.Copy))}
	for k, v := range b.Copy {
		s.Copy = append(s.Copy, copyEntry{Key: k, Text: v})
	}
	sort.Slice(s.Copy, func(i, j int) bool { return s.Copy[i].Key < s.Copy[j].Key })
	return s
}

func (s stored) brand() Brand {
	b := s.Brand
	b.Copy = make(map[string]string, len(s.Copy))
	for _, e := range s.Copy {
		b.Copy[e.Key] = e.Text
	}
	return b
}

// UI returns the brand as the envelope's meta carries it.
func (b Brand) UI() ui.Brand {
	logo := b.Logo
	return ui.Brand{Key: b.Key, Name: b.Name, Tagline: b.Tagline, Logo: &logo,
		SupportEmail: b.SupportEmail, Theme: b.Theme}
}

// Copy resolves copy keys for one brand: the brand's published edits, its
// seeded copy, then the default brand's edits and copy.
type Copy struct {
	layers []map[string]string
}

// T returns the text for key. A key missing everywhere returns the key itself
// so the gap is visible rather than blank; a test asserts that every key the
// screens use exists in the default brand.
func (c Copy) T(key string) string {
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

// ReadSeed reads brands/<key>.json files from fsys.
func ReadSeed(fsys fs.FS) ([]Brand, error) {
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

// Seed inserts the seed brands that the database does not have yet. Brands
// already stored are left alone, so editors' changes survive restarts.
func Seed(ctx context.Context, db *mongo.Database, seed []Brand) error {
	coll := db.Collection(Collection)
	for _, b := range seed {
		_, err := coll.InsertOne(ctx, toStored(b))
		if err != nil && !mongo.IsDuplicateKeyError(err) {
			return fmt.Errorf("seed brand %s: %w", b.Key, err)
		}
	}
	return nil
}

// Load reads every brand from the database into the registry.
func (r *Registry) Load(ctx context.Context, db *mongo.Database, logger *slog.Logger) error {
	cur, err := db.Collection(Collection).Find(ctx, bson.M{})
	if err != nil {
		return fmt.Errorf("load brands: %w", err)
	}
	var docs []stored
	if err := cur.All(ctx, &docs); err != nil {
		return fmt.Errorf("read brands: %w", err)
	}
	brands := make([]Brand, 0, len(docs))
	for _, d := range docs {
		brands = append(brands, d.brand())
	}
	found := false
	for _, b := range brands {
		found = found || b.Key == DefaultKey
	}
	if !found {
		return errors.New("load brands: the default brand is missing")
	}
	r.Set(brands)
	logger.Debug("brands loaded", "count", len(brands))
	return nil
}
