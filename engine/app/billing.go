package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"glimpse/engine/billing"
	"glimpse/engine/mail"
	"glimpse/engine/profile"
	"glimpse/engine/report"
	"glimpse/screens"
)

// billingMail turns a billing notice into a mail in the outbox, with the
// link each kind of notice leads to.
func (a *App) billingMail(ctx context.Context, n billing.Notice) error {
	if a.Outbox == nil {
		return nil
	}
	m, err := a.billingMessage(ctx, n)
	if err != nil {
		return err
	}
	return a.Outbox.Enqueue(ctx, m)
}

// billingMails queues many billing mails at once (a renewal pass's
// receipts), in the outbox's batched insert. A notice that cannot be made
// into a mail is left out and its error returned; the others are queued.
func (a *App) billingMails(ctx context.Context, notices []billing.Notice) error {
	if a.Outbox == nil {
		return nil
	}
	msgs := make([]mail.Message, 0, len(notices))
	var errs []error
	for _, n := range notices {
		m, err := a.billingMessage(ctx, n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		msgs = append(msgs, m)
	}
	return errors.Join(append(errs, a.Outbox.EnqueueMany(ctx, msgs))...)
}

// billingMessage is the mail a billing notice asks for, in the brand's words.
func (a *App) billingMessage(ctx context.Context, n billing.Notice) (mail.Message, error) {
	data := map[string]string{}
	for k, v := range n.Data {
		data[k] = v
	}
	var template string
	switch n.Kind {
	case billing.NoticePurchase:
		// The buyer has no account yet: the mail leads to creating it.
		// The link's key is the mail's own secret: knowing the
		// subscription's id is not enough to create the account.
		template = mail.TemplatePurchase
		link, err := a.Accounts.ActivationLinkTo(ctx, n.Data["subscription"], n.To)
		if err != nil {
			return mail.Message{}, err
		}
		data["link"] = link
		data["email"] = n.To
	case billing.NoticePaymentFailed:
		template = mail.TemplatePaymentFailed
		data["link"] = "/checkout/card?subscription=" + url.QueryEscape(n.Data["subscription"])
	case billing.NoticeConfirmPayment:
		// The token is the link's only secret (like Stripe's hosted
		// invoice link): it is put in the link and nowhere else.
		template = mail.TemplateConfirmPayment
		delete(data, "token")
		delete(data, "subscription")
		data["link"] = billing.PathCheckoutConfirm + "?token=" + url.QueryEscape(n.Data["token"])
	case billing.NoticeCanceled:
		template = mail.TemplateCanceled
		// A change scheduled for the renewal went with the cancel: say so.
		if dropped := n.Data["dropped"]; dropped != "" {
			data["dropped"] = strings.ReplaceAll(a.Brands.Copy(a.Brands.Get(n.Brand)).T("mail.canceled.dropped"), "{next}", dropped)
		}
	case billing.NoticeResumed:
		template = mail.TemplateResumed
	case billing.NoticePlanChange:
		template = mail.TemplatePlanChange
	case billing.NoticePlanKept:
		template = mail.TemplatePlanKept
	case billing.NoticeExtended:
		template = mail.TemplateExtended
	case billing.NoticeCardUpdated:
		template = mail.TemplateCardUpdated
	case billing.NoticeRefunded:
		template = mail.TemplateRefunded
		words := a.Brands.Copy(a.Brands.Get(n.Brand))
		if family := n.Data["family"]; family != "" {
			data["item"] = words.T("plan.offer." + family + ".title")
		}
		switch n.Data["ends"] {
		case "plan":
			data["effect"] = words.T("mail.refunded.endsPlan")
		case "add_on":
			data["effect"] = words.T("mail.refunded.endsAddOn")
		case "duplicate":
			data["effect"] = words.T("mail.refunded.duplicate")
		default:
			data["effect"] = words.T("mail.refunded.keeps")
		}
		delete(data, "family")
		delete(data, "ends")
	case billing.NoticeReceipt:
		template = mail.TemplateReceipt
		if family := n.Data["family"]; family != "" {
			// An add-on is named as My Plan names it, in the brand's words
			// (the plan table knows main plans only).
			data["item"] = a.Brands.Copy(a.Brands.Get(n.Brand)).T("plan.offer." + family + ".title")
		}
		delete(data, "family")
		delete(data, "kind")
		// The service period a plan's charge pays for, and, sent again
		// after a refund, what was given back: each a line of its own.
		words := a.Brands.Copy(a.Brands.Get(n.Brand))
		data["period"], data["refunded"] = "", ""
		if period := n.Data["period"]; period != "" {
			data["period"] = "\n" + strings.ReplaceAll(words.T("mail.receipt.period"), "{period}", period)
		}
		if back := n.Data["refunded"]; back != "" {
			data["refunded"] = "\n" + strings.NewReplacer("{amount}", back, "{date}", n.Data["refundedOn"]).Replace(words.T("mail.receipt.refunded"))
		}
		delete(data, "refundedOn")
	case billing.NoticeProfileReport:
		return a.profileReportMessage(ctx, n)
	case billing.NoticeCancelLink:
		// The token is the link's only secret; the notice carries it to
		// the mail and nowhere else (it is not logged).
		template = mail.TemplateCancelConfirm
		delete(data, "token")
		data["link"] = "/unsubscription?from=" + url.QueryEscape(n.Data["token"])
	default:
		return mail.Message{}, fmt.Errorf("billing mail: unknown notice %q", n.Kind)
	}
	return mail.Message{Key: n.Key, To: n.To, Brand: n.Brand, Template: template, Data: data, Unlisted: n.ByCharge}, nil
}

// profileReportMessage makes the bought profile report's mail (the spec's
// ig-getPdfReport). The report is made from the profile's analysis: with one,
// the mail carries it as a PDF; before the first, the mail says so and that
// the report follows as soon as the analysis is ready, a promise
// deliverProfileReport keeps. Either way the mail says only what it holds.
func (a *App) profileReportMessage(ctx context.Context, n billing.Notice) (mail.Message, error) {
	user := n.Data["user"]
	p, err := a.Profiles.Get(ctx, user)
	if err != nil {
		return mail.Message{}, fmt.Errorf("profile report for %s: %w", user, err)
	}
	if p.Result == nil {
		return mail.Message{Key: ProfileReportPendingKey(user), To: n.To, Brand: n.Brand, Template: mail.TemplateProfileReportPending,
			Data: map[string]string{"email": n.Data["email"], "link": screens.PathAnalytics}}, nil
	}
	return a.profileReportMail(ProfileReportKey(user), n.To, n.Brand, n.Data["email"], p)
}

// ProfileReportKey is the mail that delivers a subscriber's profile report,
// the PDF attached: sent once, by the purchase when the profile has an
// analysis, else by the first analysis after it (deliverProfileReport).
func ProfileReportKey(userID string) string { return "profile-report:" + userID }

// ProfileReportPendingKey is the mail that says a report bought before the
// profile's first analysis is mailed as soon as there is one.
func ProfileReportPendingKey(userID string) string { return "profile-report-pending:" + userID }

// profileReportMail is the mail with the report of p, an analysed profile,
// attached.
func (a *App) profileReportMail(key, to, brandKey, email string, p profile.Profile) (mail.Message, error) {
	b := a.Brands.Get(brandKey)
	source := ""
	if p.Source == profile.SourceDemo {
		source = a.Brands.Copy(b).T("analytics.demoSource")
	}
	followers, engagement := p.Series()
	pdf, err := report.Render(report.Report{Brand: b.Name, Username: p.Username, GeneratedAt: a.Clock.Now(),
		Result: *p.Result, Followers: followers, Engagement: engagement, Source: source})
	if err != nil {
		return mail.Message{}, fmt.Errorf("profile report for %s: %w", p.UserID, err)
	}
	return mail.Message{Key: key, To: to, Brand: brandKey, Template: mail.TemplateProfileReport,
		Data:        map[string]string{"email": email},
		Attachments: []mail.Attachment{{Name: "profile-report.pdf", ContentType: "application/pdf", Data: pdf}}}, nil
}

// deliverProfileReport runs after every analysis stored (profile.OnAnalysed)
// and keeps the promise of a report bought before there was one: an owner of
// the profile report whose report was never mailed gets it now, the PDF
// attached, once (ProfileReportKey, the key a purchase with an analysis
// mails it under). Running on every analysis rather than only the first, a
// delivery a failure or a crash cut short is made by the next one. A failure
// is logged; the analysis stands.
func (a *App) deliverProfileReport(ctx context.Context, p profile.Profile) {
	if a.Outbox == nil || a.Billing == nil || p.Result == nil {
		return
	}
	key := ProfileReportKey(p.UserID)
	failed := func(err error) { a.Logger.Error("deliver profile report", "user", p.UserID, "error", err) }
	sent, err := a.Outbox.Has(ctx, key)
	if err != nil {
		failed(err)
		return
	}
	if sent {
		return
	}
	subs, err := a.Billing.ForUser(ctx, p.UserID)
	if err != nil {
		failed(err)
		return
	}
	now := a.Clock.Now()
	for _, sub := range subs {
		if !billing.Entitlements([]billing.Subscription{sub}, sub.Bundle, now)[billing.ProfileReport] {
			continue
		}
		msg, err := a.profileReportMail(key, sub.Email, sub.Brand, sub.Email, p)
		if err == nil {
			err = a.Outbox.Enqueue(ctx, msg)
		}
		if err != nil {
			failed(err)
		}
		return
	}
}

// mailFrom names who a brand's mail is from: the brand by its own name, the
// operator from configuration, and the brand's support address (the
// configured one for a brand that has none).
func (a *App) mailFrom(brandKey string) mail.From {
	b := a.Brands.Get(brandKey)
	support := b.SupportEmail
	if support == "" {
		support = a.Config.SupportEmail
	}
	return mail.From{Brand: b.Name, Operator: a.Config.OperatorName, Support: support}
}
