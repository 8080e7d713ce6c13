package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.mongodb.org/mongo-driver/v2/mongo"
	_ "modernc.org/sqlite" // the SQLite driver FerretDB itself uses, so both read the file the same way
)

// What FerretDB v1.24's SQLite backend generates, copied byte for byte from
// internal/backends/sqlite/metadata/metadata.go and collection.go. SQLite
// matches an expression index only when the query's expression is the same
// text-for-tree, so these must not be "tidied".
const (
	// ferretCollectionsTable maps a collection name to its table
	// (metadataTableName = backends.ReservedPrefix + "collections").
	ferretCollectionsTable = "_ferretdb_collections"
	// ferretDefaultColumn holds the whole document as JSON (metadata.DefaultColumn).
	ferretDefaultColumn = "_ferretdb_sjson"
	// ferretIDExpr is metadata.IDColumn, the left side of every `_id`
	// equality FerretDB pushes down. Its own unique index is on
	// _ferretdb_sjson->"_id" instead, which SQLite does not treat as the
	// same expression, so without our index each lookup scans the table.
	ferretIDExpr = ferretDefaultColumn + "->'$._id'"
)

// CollectionSpec declares a collection the application uses and the MongoDB
// indexes it needs.
type CollectionSpec struct {
	// Name of the collection.
	Name string
	// Indexes besides the one on _id, which every collection has. Give each
	// a name so that a changed definition fails loudly instead of adding a
	// second index next to the old one.
	Indexes []mongo.IndexModel
}

// EnsureCollections creates each collection and its indexes if missing; it
// is safe to run at every start-up. On the embedded server it also adds, in
// the SQLite file, an index on the exact expression FerretDB uses for `_id`
// lookups, without which each findOne or updateOne by `_id` scans the whole
// table (with 50,000 documents, tens of milliseconds against well under one;
// see BenchmarkIDLookup50k). Collections not declared here, or dropped and
// recreated since, lack that index, so declare every collection and run this
// at start-up.
func (s *Store) EnsureCollections(ctx context.Context, specs []CollectionSpec) error {
	for _, spec := range specs {
		if err := s.db.CreateCollection(ctx, spec.Name); err != nil && !isNamespaceExists(err) {
			return fmt.Errorf("store: create collection %q: %w", spec.Name, err)
		}
		if len(spec.Indexes) > 0 {
			if _, err := s.db.Collection(spec.Name).Indexes().CreateMany(ctx, spec.Indexes); err != nil {
				return fmt.Errorf("store: create indexes on %q: %w", spec.Name, err)
			}
		}
	}
	if s.emb == nil || len(specs) == 0 {
		return nil
	}

	db, err := s.openSQLite()
	if err != nil {
		return err
	}
	defer db.Close()
	// One connection and one transaction: SQLite parses the whole schema
	// when a connection opens and again whenever another connection changed
	// it, so an index a statement on a connection of its own would have each
	// of the others re-read every table and index before its next statement.
	db.SetMaxOpenConns(1)
	tables, err := tableNames(ctx, db)
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin SQLite _id indexes: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	for _, spec := range specs {
		table, ok := tables[spec.Name]
		if !ok {
			return fmt.Errorf("store: collection %q has no SQLite table", spec.Name)
		}
		q := fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %q ON %q (%s)`, table+"_id_expr", table, ferretIDExpr)
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("store: create SQLite _id index on %q: %w", spec.Name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit SQLite _id indexes: %w", err)
	}
	return nil
}

// tableNames reads FerretDB's registry: each collection's table.
func tableNames(ctx context.Context, db *sql.DB) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, fmt.Sprintf(`SELECT name, table_name FROM %q`, ferretCollectionsTable))
	if err != nil {
		return nil, fmt.Errorf("store: read SQLite tables: %w", err)
	}
	defer rows.Close()
	tables := map[string]string{}
	for rows.Next() {
		var name, table string
		if err := rows.Scan(&name, &table); err != nil {
			return nil, fmt.Errorf("store: read SQLite tables: %w", err)
		}
		tables[name] = table
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: read SQLite tables: %w", err)
	}
	return tables, nil
}

// ExplainIDLookup returns SQLite's query plan, one line per step, for the
// statement FerretDB runs for a find by `_id` on the collection. It exists so
// a test can fail when a dependency change makes such lookups scan again.
// It works only on the embedded server.
func (s *Store) ExplainIDLookup(ctx context.Context, collection string) (string, error) {
	if s.emb == nil {
		return "", errors.New("store: ExplainIDLookup needs the embedded server")
	}
	db, err := s.openSQLite()
	if err != nil {
		return "", err
	}
	defer db.Close()
	table, err := tableName(ctx, db, collection)
	if err != nil {
		return "", err
	}

	// Built as FerretDB's collection.Query builds it for a one-key filter on
	// a string or ObjectID `_id` with no comment, sort or limit (find sends
	// no LIMIT when there is a filter), down to the double space.
	q := fmt.Sprintf(`SELECT %s %s FROM %q`, "", ferretDefaultColumn, table) +
		fmt.Sprintf(` WHERE %s = ?`, ferretIDExpr)
	rows, err := db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, `"some-id"`)
	if err != nil {
		return "", fmt.Errorf("store: explain _id lookup on %q: %w", collection, err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			return "", fmt.Errorf("store: explain _id lookup on %q: %w", collection, err)
		}
		lines = append(lines, detail)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("store: explain _id lookup on %q: %w", collection, err)
	}
	return strings.Join(lines, "\n"), nil
}

// openSQLite opens the SQLite file FerretDB keeps for this store's database.
// mode=rw refuses to create the file, since an empty file in the data
// directory would appear to FerretDB as a database. The busy timeout waits
// out FerretDB's own writes; the file is already in WAL mode.
func (s *Store) openSQLite() (*sql.DB, error) {
	name := s.db.Name()
	// FerretDB rejects such names, so they cannot have a file; refusing them
	// here keeps the name from escaping the data directory.
	if name == "" || strings.ContainsAny(name, `/\.`) {
		return nil, fmt.Errorf("store: database name %q has no SQLite file", name)
	}
	path := filepath.Join(s.emb.dataDir, name+".sqlite")
	db, err := sql.Open("sqlite", "file:"+path+"?mode=rw&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	return db, nil
}

// tableName looks up the table FerretDB created for a collection: a
// lowercased name plus a hash, which cannot be derived without the registry.
func tableName(ctx context.Context, db *sql.DB, collection string) (string, error) {
	var table string
	q := fmt.Sprintf(`SELECT table_name FROM %q WHERE name = ?`, ferretCollectionsTable)
	err := db.QueryRowContext(ctx, q, collection).Scan(&table)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("store: collection %q has no SQLite table", collection)
	}
	if err != nil {
		return "", fmt.Errorf("store: look up SQLite table of %q: %w", collection, err)
	}
	return table, nil
}

// isNamespaceExists reports MongoDB's NamespaceExists (48), which create
// returns for a collection that is already there.
func isNamespaceExists(err error) bool {
	var se mongo.ServerError
	return errors.As(err, &se) && se.HasErrorCode(48)
}
