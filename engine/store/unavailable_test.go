package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine/store"
	"glimpse/engine/store/storetest"
)

// TestServerGoneIsUnavailableQuickly connects to a MongoDB server of the
// test's own, stops the server, and checks that the client's next operation
// fails within a few seconds with an error IsUnavailable recognises: what the
// HTTP layer turns into a prompt 503 instead of a page that hangs while the
// database is away.
func TestServerGoneIsUnavailableQuickly(t *testing.T) {
	ctx := context.Background()
	uri, stop := storetest.StartServer(t)
	client, err := store.Open(ctx, store.Config{URI: uri, Database: "app"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close(ctx)
	coll := client.DB().Collection("c")
	if _, err := coll.InsertOne(ctx, bson.M{"_id": "before"}); err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	_, err = coll.InsertOne(ctx, bson.M{"_id": "during"})
	took := time.Since(start)
	if err == nil {
		t.Fatal("an insert succeeded with the server stopped")
	}
	if !store.IsUnavailable(err) {
		t.Errorf("IsUnavailable(%v) = false", err)
	}
	if took > 5*time.Second {
		t.Errorf("the failing insert took %v; want a prompt failure", took)
	}
	busy := errors.New("sqlite: step: database is locked (5) (SQLITE_BUSY)")
	if !store.IsUnavailable(fmt.Errorf("save: %w", busy)) {
		t.Error("an overloaded embedded store's SQLITE_BUSY is not unavailable")
	}
	if store.IsUnavailable(errors.New("some bug")) || store.IsUnavailable(nil) {
		t.Error("IsUnavailable is true for an unrelated error")
	}
}
