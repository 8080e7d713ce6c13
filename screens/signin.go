package screens

import "glimpse/engine/ui"

// SignInForm is the id of the sign-in form; its inputs are email and password.
const SignInForm = "sign-in"

// NoSubscriptionOverlay is the modal shown when the credentials are right but
// no subscription authorises the person.
const NoSubscriptionOverlay = "no-subscription"

// SubscriptionExpiredOverlay is the alert shown when the credentials are
// right but every subscription on this brand's bundle has expired.
const SubscriptionExpiredOverlay = "subscription-expired"

// SignIn is the sign-in screen. billingURL is where a person without a
// subscription can buy one.
func SignIn(c Context, billingURL string) Page {
	logo := ui.ImageOf(c.Brand.Logo)
	logo.Size = "md"
	headline := ui.Text("title", c.T("signIn.headline"))
	headline.Align = "center"
	submit := ui.Button(c.T("signIn.submit"), "primary", ui.Submit("session.sign_in", SignInForm))
	form := ui.Form(SignInForm, ui.Submit("session.sign_in", SignInForm),
		ui.TextInput("email", "email", c.T("signIn.emailLabel"), c.T("signIn.emailPlaceholder"),
			ui.Email(c.T("signIn.wrongEmail"))),
		ui.TextInput("password", "password", c.T("signIn.passwordLabel"), c.T("signIn.passwordPlaceholder"),
			ui.MinLength(6, c.T("signIn.minPassword"))),
		ui.Link(c.T("signIn.forgot"), ui.Navigate(PathAccessRecovery)),
		ui.FormError(SignInForm),
		submit,
	)
	form.Children[0].Autocomplete = "email"
	form.Children[1].Autocomplete = "current-password"
	// A visitor without an account is shown the way to one: the plans (issue #21).
	plans := ui.Stack("none", ui.Link(c.T("signIn.newVisitor"), ui.Navigate(billingURL)))
	plans.Align = "center"
	screen := ui.Screen("sign-in", c.T("signIn.title"), ui.Stack("lg", logo, headline, form, plans))
	screen.Layout = "centered"
	screen.Footer = footer(c)

	art := ui.Image("/static/illustrations/no-subscription.svg", c.T("noSubscription.imageAlt"))
	art.Size = "md"
	noSub := ui.Dialog(NoSubscriptionOverlay, "modal", c.T("noSubscription.title"),
		art,
		ui.Text("body", c.T("noSubscription.text")),
		ui.Button(c.T("noSubscription.continue"), "primary", ui.Sequence(
			ui.Track("log", map[string]any{"source": "sww_modal", "message": "subscription not found"}),
			ui.OpenURL(billingURL, false),
		)),
	)
	// The alert for an account whose subscriptions here have all expired,
	// and the notice after a password reset (opened by the answer that
	// sends the person here).
	expired := ui.Dialog(SubscriptionExpiredOverlay, "modal", c.T("subscriptionExpired.title"),
		ui.Text("body", c.T("subscriptionExpired.text")),
		ui.Button(c.T("subscriptionExpired.ok"), "primary", ui.CloseOverlay(SubscriptionExpiredOverlay)))
	changed := ui.Dialog(PasswordChangedOverlay, "modal", c.T("passwordRecovery.changedTitle"),
		ui.Text("body", c.T("passwordRecovery.changedText")),
		ui.Button(c.T("passwordRecovery.changedOk"), "primary", ui.CloseOverlay(PasswordChangedOverlay)))
	return Page{
		Screen: screen,
		Overlays: map[string]*ui.Node{NoSubscriptionOverlay: noSub, SubscriptionExpiredOverlay: expired,
			PasswordChangedOverlay: changed},
		State: map[string]any{"form": map[string]any{"email": "", "password": ""}},
	}
}
