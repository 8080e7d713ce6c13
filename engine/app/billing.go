package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"glimpse/engine/billing"
	"glimpse/engine/mail"
	"glimpse/engine/report"
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
		link, err := a.Accounts.ActivationLink(ctx, n.Data["subscription"])
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
	case billing.NoticeReceipt:
		template = mail.TemplateReceipt
		if family := n.Data["family"]; family != "" {
			// An add-on is named as My Plan names it, in the brand's words
			// (the plan table knows main plans only).
			data["item"] = a.Brands.Copy(a.Brands.Get(n.Brand)).T("plan.offer." + family + ".title")
		}
		delete(data, "family")
		delete(data, "kind")
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
// ig-getPdfReport). With no analysis yet the mail says so; the report can
// be downloaded from My Plan once there is one.
func (a *App) profileReportMessage(ctx context.Context, n billing.Notice) (mail.Message, error) {
	msg := mail.Message{Key: n.Key, To: n.To, Brand: n.Brand, Template: mail.TemplateProfileReport,
		Data: map[string]string{"email": n.Data["email"]}}
	if p, err := a.Profiles.Get(ctx, n.Data["user"]); err == nil && p.Result != nil {
		followers, engagement := p.Series()
		pdf, err := report.Render(report.Report{Brand: a.Brands.Get(n.Brand).Name, Username: p.Username,
			GeneratedAt: a.Clock.Now(), Result: *p.Result, Followers: followers, Engagement: engagement})
		if err != nil {
			return mail.Message{}, fmt.Errorf("profile report for %s: %w", n.Data["user"], err)
		}
		msg.Attachments = []mail.Attachment{{Name: "profile-report.pdf", ContentType: "application/pdf", Data: pdf}}
	}
	return msg, nil
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
