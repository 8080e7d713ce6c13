package app

import (
	"fmt"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/config"
)

// paymentProvider builds the payment provider GLIMPSE_PAYMENTS names: the
// built-in sandbox (takes no money) or Stripe (docs/stripe.md). config.Load
// already refused stripe without a secret key.
func paymentProvider(cfg config.Config, sandbox billing.SandboxRecords, clock engine.Clock, webhookSecret string) (billing.Provider, error) {
	switch cfg.Payments {
	case "", "sandbox":
		return billing.NewSandbox(sandbox, clock, webhookSecret), nil
	case "stripe":
		p, err := billing.NewStripe(billing.StripeConfig{SecretKey: cfg.StripeSecretKey, APIBase: cfg.StripeAPIBase, Clock: clock})
		if err != nil {
			return nil, fmt.Errorf("payments: %w", err)
		}
		return p, nil
	}
	return nil, fmt.Errorf("payments: unknown provider %q (GLIMPSE_PAYMENTS)", cfg.Payments)
}

// webhookSecret is the secret provider events are verified with: Stripe's
// endpoint secret (GLIMPSE_STRIPE_WEBHOOK_SECRET), or, for the sandbox
// without one, a random secret of this process's: the sandbox signs its
// events in process, and nobody else can sign one.
func webhookSecret(cfg config.Config) string {
	if cfg.StripeWebhookSecret != "" || cfg.Payments == "stripe" {
		return cfg.StripeWebhookSecret
	}
	return "whsec_sandbox_" + engine.NewToken()
}
