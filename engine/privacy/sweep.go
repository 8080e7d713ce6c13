package privacy

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/engine/store"
)

// deleteExports deletes the exports filter selects, with their parts and
// keys.
func (s *Service) deleteExports(ctx context.Context, filter bson.M) error {
	cur, err := s.db.Collection(ExportsCollection).Find(ctx, filter)
	if err != nil {
		return fmt.Errorf("find exports: %w", err)
	}
	var exports []Export
	if err := cur.All(ctx, &exports); err != nil {
		return fmt.Errorf("find exports: %w", err)
	}
	for _, e := range exports {
		if err := s.deleteExportFiles(ctx, e.ID); err != nil {
			return err
		}
		if err := s.deleteMany(ctx, ExportsCollection, bson.M{"_id": e.ID}); err != nil {
			return err
		}
		// Again once the export is gone: a builder that stored a part or
		// minted a link between the first pass and the export's deletion
		// finds the export gone when it marks it ready, so nothing of it
		// is written after this.
		if err := s.deleteExportFiles(ctx, e.ID); err != nil {
			return err
		}
	}
	return nil
}

// deleteExportFiles deletes an export's parts and download keys.
func (s *Service) deleteExportFiles(ctx context.Context, exportID string) error {
	if err := s.deleteMany(ctx, ExportChunksCollection, bson.M{"exportId": exportID}); err != nil {
		return err
	}
	return s.deleteMany(ctx, ExportKeysCollection, bson.M{"exportId": exportID})
}

// farewellKept is how long the last mail's key is remembered to delete the
// mail once sent; a mail still not sent by then has failed for good.
const farewellKept = 7 * 24 * time.Hour

// lastMail is a deleted account's last mail, to delete once sent
// (FarewellsCollection).
type lastMail struct {
	Key string    `bson:"_id"`
	At  time.Time `bson:"at"`
}

// eraseSentFarewells deletes the last mails of deleted accounts that have
// gone out (or been given up), and forgets them; the collection holds the
// last few days' deletions, so reading it whole is cheap.
func (s *Service) eraseSentFarewells(ctx context.Context, now time.Time) error {
	cur, err := s.db.Collection(FarewellsCollection).Find(ctx, bson.M{})
	if err != nil {
		return fmt.Errorf("find last mails: %w", err)
	}
	var pending []lastMail
	if err := cur.All(ctx, &pending); err != nil {
		return fmt.Errorf("find last mails: %w", err)
	}
	for _, f := range pending {
		gone, err := s.o.Mail.Erase(ctx, f.Key)
		if err != nil {
			return err
		}
		if gone || now.Sub(f.At) > farewellKept {
			if _, err := s.db.Collection(FarewellsCollection).DeleteOne(ctx, bson.M{"_id": f.Key}); err != nil {
				return fmt.Errorf("forget last mail: %w", err)
			}
		}
	}
	return nil
}

// MoveFarewells moves, once per database, the last mails an older release
// remembered in the erasure ledger (a field the sweep searched the growing
// ledger for) to FarewellsCollection.
func MoveFarewells(ctx context.Context, db *mongo.Database, settings string) error {
	return store.OncePerDatabase(ctx, db, settings, farewellsMovedMarker, func(ctx context.Context) error {
		cur, err := db.Collection(ErasuresCollection).Find(ctx, bson.M{"farewell": bson.M{"$exists": true, "$ne": ""}})
		if err != nil {
			return fmt.Errorf("move last mails: %w", err)
		}
		var ledger []erasure
		if err := cur.All(ctx, &ledger); err != nil {
			return fmt.Errorf("move last mails: %w", err)
		}
		for _, l := range ledger {
			if _, err := db.Collection(FarewellsCollection).InsertOne(ctx, lastMail{Key: l.Farewell, At: l.At}); err != nil && !store.IsDuplicateKey(err) {
				return fmt.Errorf("move last mails: %w", err)
			}
			if _, err := db.Collection(ErasuresCollection).UpdateOne(ctx, bson.M{"_id": l.ID}, bson.M{"$unset": bson.M{"farewell": ""}}); err != nil {
				return fmt.Errorf("move last mails: %w", err)
			}
		}
		return nil
	})
}

const farewellsMovedMarker = "privacy-farewells-moved"

// Sweep deletes what has run its time: expired exports with their parts
// and keys, expired download keys, the last mails of deleted accounts once
// sent, the receipts of deleted accounts past the tax period, and Meta's
// deletion requests past their status period.
func (s *Service) Sweep(ctx context.Context) error {
	now := s.now()
	// An export or key stops working at its expiry (Download), so it goes
	// at that moment too.
	if err := s.deleteExports(ctx, bson.M{"expiresAt": bson.M{"$lte": now}}); err != nil {
		return err
	}
	if err := s.deleteMany(ctx, ExportKeysCollection, bson.M{"expiresAt": bson.M{"$lte": now}}); err != nil {
		return err
	}
	if err := s.eraseSentFarewells(ctx, now); err != nil {
		return err
	}
	if _, err := s.ResumeErasures(ctx); err != nil {
		return err
	}
	if _, err := s.o.Billing.PurgeRetained(ctx); err != nil {
		return err
	}
	return s.deleteMany(ctx, InstagramDeletionsCollection, bson.M{"expiresAt": bson.M{"$lt": now}})
}
