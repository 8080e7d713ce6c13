package mongostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/library"
)

// contentDocsCollection holds the editors' items, listed by kind and slug.
var contentDocsCollection = collection{name: "content_docs", indexes: []index{
	{name: "by_kind", keys: bson.D{{Key: "kind", Value: 1}, {Key: "slug", Value: 1}}, unique: true},
}}

// contentVersionCollection holds one document, the content version every
// instance polls, read and bumped by _id.
var contentVersionCollection = collection{name: "content_version"}

// contentVersionID is the _id of the one version document.
const contentVersionID = "content"

type revisionDoc struct {
	N       int               `bson:"n"`
	At      time.Time         `bson:"at"`
	By      string            `bson:"by"`
	Action  string            `bson:"action"`
	Fields  map[string]string `bson:"fields"`
	Changed []string          `bson:"changed"`
}

type contentDoc struct {
	ID        string            `bson:"_id"`
	Kind      string            `bson:"kind"`
	Slug      string            `bson:"slug"`
	Draft     map[string]string `bson:"draft"`
	Published map[string]string `bson:"published,omitempty"`
	Status    string            `bson:"status"`
	UpdatedAt time.Time         `bson:"updatedAt"`
	UpdatedBy string            `bson:"updatedBy"`
	Rev       int               `bson:"rev"`
	Revisions []revisionDoc     `bson:"revisions"`
}

func toContentDoc(d library.Doc) contentDoc {
	revs := make([]revisionDoc, len(d.Revisions))
	for i, v := range d.Revisions {
		revs[i] = revisionDoc(v)
	}
	return contentDoc{ID: d.ID, Kind: d.Kind, Slug: d.Slug, Draft: d.Draft, Published: d.Published, Status: d.Status,
		UpdatedAt: d.UpdatedAt, UpdatedBy: d.UpdatedBy, Rev: d.Rev, Revisions: revs}
}

func (c contentDoc) item() library.Doc {
	d := library.Doc{ID: c.ID, Kind: c.Kind, Slug: c.Slug, Draft: c.Draft, Published: c.Published, Status: c.Status,
		UpdatedAt: c.UpdatedAt.UTC(), UpdatedBy: c.UpdatedBy, Rev: c.Rev}
	if c.Revisions != nil {
		d.Revisions = make([]library.Revision, len(c.Revisions))
		for i, v := range c.Revisions {
			d.Revisions[i] = library.Revision(v)
			d.Revisions[i].At = v.At.UTC()
		}
	}
	return d
}

// ContentItems stores the editors' content in MongoDB.
type ContentItems struct {
	docs    *mongo.Collection
	version *mongo.Collection
}

// NewContentItems returns the library's storage on db.
func NewContentItems(db *mongo.Database) *ContentItems {
	return &ContentItems{docs: db.Collection(contentDocsCollection.name), version: db.Collection(contentVersionCollection.name)}
}

var _ library.Items = (*ContentItems)(nil)

// Insert stores a new item, or returns library.ErrItemExists.
func (s *ContentItems) Insert(ctx context.Context, d library.Doc) error {
	_, err := s.docs.InsertOne(ctx, toContentDoc(d))
	if mongo.IsDuplicateKeyError(err) {
		return library.ErrItemExists
	}
	if err != nil {
		return fmt.Errorf("insert content %s: %w", d.ID, err)
	}
	return nil
}

// Get returns the item with the id, or library.ErrNoItem.
func (s *ContentItems) Get(ctx context.Context, id string) (library.Doc, error) {
	var c contentDoc
	err := s.docs.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&c)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return library.Doc{}, library.ErrNoItem
	}
	if err != nil {
		return library.Doc{}, fmt.Errorf("content %s: %w", id, err)
	}
	d := c.item()
	if d.Revisions == nil {
		d.Revisions = []library.Revision{}
	}
	return d, nil
}

// OfKind returns the kind's items ordered by slug, without their revisions.
func (s *ContentItems) OfKind(ctx context.Context, kind string) ([]library.Doc, error) {
	cur, err := s.docs.Find(ctx, bson.D{{Key: "kind", Value: kind}}, options.Find().
		SetSort(bson.D{{Key: "slug", Value: 1}}).SetProjection(bson.D{{Key: "revisions", Value: 0}}))
	if err != nil {
		return nil, fmt.Errorf("content of kind %s: %w", kind, err)
	}
	var docs []contentDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("content of kind %s: %w", kind, err)
	}
	out := make([]library.Doc, len(docs))
	for i, c := range docs {
		out[i] = c.item()
	}
	return out, nil
}

// Update replaces the item if it is still at revision from: a replace
// filtered on the revision, which MongoDB applies atomically. With bump, the
// version is bumped after the replace; a publish stopped in between is
// completed by its retry (library.Repo.Publish bumps when nothing is left to
// write).
func (s *ContentItems) Update(ctx context.Context, d library.Doc, from int, bump bool) (int64, error) {
	res, err := s.docs.ReplaceOne(ctx, bson.D{{Key: "_id", Value: d.ID}, {Key: "rev", Value: from}}, toContentDoc(d))
	if err != nil {
		return 0, fmt.Errorf("update content %s: %w", d.ID, err)
	}
	if res.MatchedCount == 0 {
		return 0, library.ErrStaleRevision
	}
	if !bump {
		return 0, nil
	}
	return s.Bump(ctx)
}

// Bump adds one to the version document ($inc, atomic on MongoDB), creating
// it at 1.
func (s *ContentItems) Bump(ctx context.Context) (int64, error) {
	var v struct {
		N int64 `bson:"n"`
	}
	err := s.version.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: contentVersionID}},
		bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: int64(1)}}}},
		options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.After)).Decode(&v)
	if err != nil {
		return 0, fmt.Errorf("bump content version: %w", err)
	}
	return v.N, nil
}

// Version returns the newest content version, 0 before the first.
func (s *ContentItems) Version(ctx context.Context) (int64, error) {
	var v struct {
		N int64 `bson:"n"`
	}
	err := s.version.FindOne(ctx, bson.D{{Key: "_id", Value: contentVersionID}}).Decode(&v)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("content version: %w", err)
	}
	return v.N, nil
}
