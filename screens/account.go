package screens

import "glimpse/engine/ui"

// CreateAccountForm is the id of the account-creation form: a disabled
// email input, a password input and, from the state, the activation key.
const CreateAccountForm = "create-account"

// CreateAccountState is what the 'Create Your Account' screen shows.
type CreateAccountState struct {
	// Key is the activation link's key (its key query parameter), which
	// names the paid subscription the account is created for. The server
	// checks it again on submit.
	Key string
	// Email is the subscription's account email; the input is disabled.
	Email string
	// Problem, when set, is the copy key of why there is no form: the
	// checks run in the spec's order, the link's key then subscription.
	Problem string
	// EmailInUse says an account with the email exists already: the
	// identity provider's message and a hint to restore the password.
	EmailInUse bool
	// Ready says the link's account exists already (the link was used):
	// the screen says so and offers sign-in.
	Ready bool
}

// Copy keys of CreateAccountState.Problem.
const (
	CreateAccountLinkInvalid    = "createAccount.linkInvalid"
	CreateAccountNoSubscription = "createAccount.noSubscription"
)

// CreateAccount is the 'Create Your Account' screen at
// /access-recovery?key=<activation key>: the email of the paid subscription
// (disabled), a password and 'Sign up'. Without a usable subscription it
// says why instead of showing the form; once the account exists it says the
// account is ready and offers sign-in.
func CreateAccount(c Context, st CreateAccountState) Page {
	logo := ui.ImageOf(c.Brand.Logo)
	logo.Size = "md"
	title := ui.Text("title", c.T("createAccount.title"))
	title.Align = "center"
	subtitle := ui.Text("body", c.T("createAccount.subtitle"))
	subtitle.Align = "center"
	restore := ui.Link(c.T("createAccount.restore"), ui.Navigate(PathSignIn))
	var body *ui.Node
	switch {
	case st.Ready:
		body = ui.Stack("md",
			&ui.Node{Type: "banner", Tone: "positive", Text: c.T("createAccount.ready")},
			ui.Button(c.T("createAccount.signIn"), "primary", ui.Navigate(PathSignIn)),
		)
	case st.Problem != "":
		body = ui.Stack("md",
			&ui.Node{Type: "banner", Tone: "danger", Text: c.T(st.Problem)},
			ui.Button(c.T("accessRecovery.title"), "secondary", ui.Navigate(PathAccessRecovery)),
			restore,
		)
	default:
		submit := &ui.Action{Type: "submit", Name: "account.create", Form: CreateAccountForm, Include: []string{"/key"}}
		email := ui.TextInput("email", "email", c.T("createAccount.emailLabel"), "",
			ui.Email(c.T("createAccount.wrongEmail")))
		email.Disabled = true
		email.Autocomplete = "username"
		password := ui.TextInput("password", "password", c.T("createAccount.passwordLabel"), c.T("createAccount.passwordPlaceholder"),
			ui.MinLength(6, c.T("createAccount.minPassword")))
		password.Autocomplete = "new-password"
		var inUse *ui.Node
		if st.EmailInUse {
			inUse = &ui.Node{Type: "banner", Tone: "danger", Text: c.T("createAccount.emailInUse"),
				Children: []*ui.Node{ui.Link(c.T("createAccount.restoreHint"), ui.Navigate(PathSignIn))}}
		}
		body = ui.Form(CreateAccountForm, submit,
			inUse,
			email,
			password,
			restore,
			ui.FormError(CreateAccountForm),
			ui.Button(c.T("createAccount.submit"), "primary", submit),
		)
	}
	screen := ui.Screen("create-account", c.T("createAccount.title"), ui.Stack("lg", logo, title, subtitle, body))
	screen.Layout = "centered"
	screen.Footer = footer(c)
	return Page{Screen: screen, State: map[string]any{
		"key":  st.Key,
		"form": map[string]any{"email": st.Email, "password": ""},
	}}
}
