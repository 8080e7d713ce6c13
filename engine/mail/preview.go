package mail

import "glimpse/engine/brand"

// Preview renders m as the outbox would store it (subject and the text
// body the dev mailbox shows), in words' copy and from's names, without
// storing or sending it: the studio's copy editor draws a mail with the
// text being edited. Relative links are made absolute on base; demo adds
// the public demo's notice (WithDemoNotice).
func Preview(words brand.Copy, from From, base string, demo bool, m Message) (subject, text string, err error) {
	o := &Outbox{copy: func(string) brand.Copy { return words }, sender: func(string) From { return from },
		baseURL: base, demo: demo}
	r, err := o.render(m)
	return r.Subject, r.Text, err
}
