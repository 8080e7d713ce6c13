package billing

import "glimpse/engine"

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
