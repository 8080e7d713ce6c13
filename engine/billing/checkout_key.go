package billing

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
	"glimpse/engine/store"
)

// checkoutKeyClaim is the claim binding a checkout key to what it buys
// (StartCheckout, bindKey); keyHash is the key's hash.
func checkoutKeyClaim(keyHash string) string { return "checkout-key:" + keyHash }

// checkoutKeyOwner is what a checkout key is bound to: the plan, and the
// buyer's address hashed with the key's hash. The claim outlives any
// checkout page by weeks (keyLifetime), and nothing finds it by the address
// (its id is the random key's), so account deletion could not erase it: so
// it holds no address. Hashed with the key, the hash is of no use for
// recognising the address elsewhere (the sign-in limits hash addresses
// alone). A key used again with the same plan and address gives the same
// owner, and anything else another.
func checkoutKeyOwner(planCode, keyHash, email string) string {
	return planCode + "|" + engine.HashToken(keyHash+"|"+email)
}

// hashedOwnerPart matches the address part of a checkoutKeyOwner.
var hashedOwnerPart = regexp.MustCompile(`^[0-9a-f]{64}$`)

// checkoutKeysHashedMarker is the settings document saying the checkout key
// claims written before checkoutKeyOwner hold no address.
const checkoutKeysHashedMarker = "checkout-key-owners-hashed"

// HashCheckoutKeyOwners rewrites, once per database, the checkout key claims
// an older release bound to "<plan>|<address>" to checkoutKeyOwner's form, so
// that no claim keeps an address that account deletion cannot find, and a
// page opened before the upgrade still buys with its key. It reads the
// claims not yet expired (an expired one is the sweep's, within minutes), so
// it runs at start (app.Open) and then marks itself done.
func HashCheckoutKeyOwners(ctx context.Context, db *mongo.Database, settings string, now time.Time) error {
	return store.OncePerDatabase(ctx, db, settings, checkoutKeysHashedMarker, func(ctx context.Context) error {
		claims := db.Collection(store.ClaimsCollection)
		cur, err := claims.Find(ctx, bson.M{"expiresAt": bson.M{"$gt": now}},
			options.Find().SetProjection(bson.M{"_id": 1, "owner": 1}))
		if err != nil {
			return fmt.Errorf("hash checkout key owners: %w", err)
		}
		defer cur.Close(ctx)
		type claim struct {
			ID    string `bson:"_id"`
			Owner string `bson:"owner"`
		}
		var bound []claim
		for cur.Next(ctx) {
			var c claim
			if err := cur.Decode(&c); err != nil {
				return fmt.Errorf("hash checkout key owners: %w", err)
			}
			if strings.HasPrefix(c.ID, checkoutKeyClaim("")) {
				bound = append(bound, c)
			}
		}
		if err := cur.Err(); err != nil {
			return fmt.Errorf("hash checkout key owners: %w", err)
		}
		for _, c := range bound {
			plan, email, ok := strings.Cut(c.Owner, "|")
			if !ok || hashedOwnerPart.MatchString(email) {
				continue
			}
			keyHash := strings.TrimPrefix(c.ID, checkoutKeyClaim(""))
			if _, err := claims.UpdateOne(ctx, bson.M{"_id": c.ID},
				bson.M{"$set": bson.M{"owner": checkoutKeyOwner(plan, keyHash, email)}}); err != nil {
				return fmt.Errorf("hash checkout key owner of %s: %w", c.ID, err)
			}
		}
		return nil
	})
}
