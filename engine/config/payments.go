package config

import (
	"fmt"
	"net/url"
	"strings"
)

// DefaultStripeAPIBase is Stripe's API origin.
const DefaultStripeAPIBase = "https://api.stripe.com"

// loadPayments reads the payment provider's settings. Stripe without a
// secret key is refused at start rather than failing at the first checkout.
// Outside development the provider must be named: a deployment that forgot
// GLIMPSE_PAYMENTS would otherwise run the sandbox, where a test card buys
// a plan with no payment; the sandbox named on purpose is a public demo. A
// command that serves nothing (serving false) takes no payment either way.
func (c *Config) loadPayments(getenv func(string) string, serving bool) error {
	var err error
	c.Payments = strings.TrimSpace(getenv("GLIMPSE_PAYMENTS"))
	switch {
	case c.Payments != "":
	case c.Environment == Development:
		c.Payments = "sandbox"
	case serving:
		return fmt.Errorf("GLIMPSE_PAYMENTS is required outside development (GLIMPSE_ENVIRONMENT=%q): stripe to take payments "+
			"(docs/stripe.md §8), or sandbox for a public demo that takes no money and says on every page and mail that it is a demo",
			c.envName())
	}
	if c.StripeSecretKey, err = secret(getenv, "GLIMPSE_STRIPE_SECRET_KEY"); err != nil {
		return err
	}
	if c.StripeWebhookSecret, err = secret(getenv, "GLIMPSE_STRIPE_WEBHOOK_SECRET"); err != nil {
		return err
	}
	c.StripeAPIBase = strings.TrimRight(or(getenv("GLIMPSE_STRIPE_API_BASE"), DefaultStripeAPIBase), "/")
	if u, err := url.Parse(c.StripeAPIBase); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("GLIMPSE_STRIPE_API_BASE must be an http(s) origin, got %q", c.StripeAPIBase)
	}
	switch c.Payments {
	case "sandbox":
	case "": // a command outside development, which serves nothing: none chosen, and none needed
	case "stripe":
		if c.StripeSecretKey == "" {
			return fmt.Errorf("GLIMPSE_PAYMENTS=stripe needs GLIMPSE_STRIPE_SECRET_KEY (or GLIMPSE_STRIPE_SECRET_KEY_FILE)")
		}
		if c.StripeWebhookSecret == "" {
			return fmt.Errorf("GLIMPSE_PAYMENTS=stripe needs GLIMPSE_STRIPE_WEBHOOK_SECRET (or _FILE), the webhook endpoint's signing secret")
		}
	default:
		return fmt.Errorf("GLIMPSE_PAYMENTS must be sandbox or stripe, got %q", c.Payments)
	}
	return nil
}
