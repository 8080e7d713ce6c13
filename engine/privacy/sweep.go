package privacy

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
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
		if err := s.deleteMany(ctx, ExportChunksCollection, bson.M{"exportId": e.ID}); err != nil {
			return err
		}
		if err := s.deleteMany(ctx, ExportKeysCollection, bson.M{"exportId": e.ID}); err != nil {
			return err
		}
		if err := s.deleteMany(ctx, ExportsCollection, bson.M{"_id": e.ID}); err != nil {
			return err
		}
	}
	return nil
}

// farewellKept is how long the erasure ledger remembers the last mail's key
// to delete it once sent; a mail still not sent by then has failed for good.
const farewellKept = 7 * 24 * time.Hour

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
	cur, err := s.db.Collection(ErasuresCollection).Find(ctx, bson.M{"farewell": bson.M{"$exists": true, "$ne": ""}})
	if err != nil {
		return fmt.Errorf("find last mails: %w", err)
	}
	var ledger []erasure
	if err := cur.All(ctx, &ledger); err != nil {
		return fmt.Errorf("find last mails: %w", err)
	}
	for _, l := range ledger {
		gone, err := s.o.Mail.Erase(ctx, l.Farewell)
		if err != nil {
			return err
		}
		if gone || now.Sub(l.At) > farewellKept {
			if _, err := s.db.Collection(ErasuresCollection).UpdateOne(ctx, bson.M{"_id": l.ID},
				bson.M{"$unset": bson.M{"farewell": ""}}); err != nil {
				return fmt.Errorf("forget last mail: %w", err)
			}
		}
	}
	if _, err := s.ResumeErasures(ctx); err != nil {
		return err
	}
	if _, err := s.o.Billing.PurgeRetained(ctx); err != nil {
		return err
	}
	return s.deleteMany(ctx, InstagramDeletionsCollection, bson.M{"expiresAt": bson.M{"$lt": now}})
}
