package auth

import "context"

// User is an authenticated (or anonymous) user, as kube-apiserver's
// user.Info describes one.
type User struct {
	// Name identifies the user ("alice", "system:anonymous").
	Name string
	// UID is a stable identifier, when the authenticator knows one.
	UID string
	// Groups the user belongs to ("system:authenticated", …).
	Groups []string
	// Extra holds further attributes, keyed by name (scopes, …).
	Extra map[string][]string
}

// InGroup reports whether the user belongs to group.
func (u *User) InGroup(group string) bool {
	if u == nil {
		return false
	}
	for _, g := range u.Groups {
		if g == group {
			return true
		}
	}
	return false
}

type userKey struct{}

// WithUser returns a copy of ctx carrying u.
func WithUser(ctx context.Context, u *User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the user on ctx, if any.
func UserFrom(ctx context.Context) (*User, bool) {
	u, ok := ctx.Value(userKey{}).(*User)
	return u, ok && u != nil
}
