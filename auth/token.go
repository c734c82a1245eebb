package auth

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

// TokenAuthenticator maps a bearer token to a user: the user and true
// for a token it knows, false and no error for one it does not.
type TokenAuthenticator interface {
	AuthenticateToken(ctx context.Context, token string) (*User, bool, error)
}

// TokenAuthenticatorFunc adapts a function to TokenAuthenticator.
type TokenAuthenticatorFunc func(ctx context.Context, token string) (*User, bool, error)

// AuthenticateToken calls f.
func (f TokenAuthenticatorFunc) AuthenticateToken(ctx context.Context, token string) (*User, bool, error) {
	return f(ctx, token)
}

// ErrInvalidToken is the error of a bearer token that no
// TokenAuthenticator knows.
var ErrInvalidToken = errors.New("invalid bearer token")

// BearerToken authenticates requests by their "Authorization: Bearer
// <token>" header. A request with a bearer token that Tokens does not
// know fails with ErrInvalidToken. The header is removed from requests it
// authenticates.
type BearerToken struct {
	Tokens TokenAuthenticator
}

var _ Authenticator = BearerToken{}

// AuthenticateRequest reads the bearer token.
func (b BearerToken) AuthenticateRequest(r *http.Request) (*User, bool, error) {
	token, ok := ParseBearerToken(r.Header.Get("Authorization"))
	if !ok {
		return nil, false, nil
	}
	u, ok, err := b.Tokens.AuthenticateToken(r.Context(), token)
	switch {
	case err != nil:
		return nil, false, err
	case !ok || u == nil:
		return nil, false, ErrInvalidToken
	}
	r.Header.Del("Authorization")
	return u, true, nil
}

// ParseBearerToken returns the token of an Authorization header value of
// the form "Bearer <token>" (the scheme in any case), and false for any
// other value or an empty token.
func ParseBearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	if token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}

// TokenFile is a static set of tokens in kube-apiserver's
// --token-auth-file format: a CSV file with one token a line,
//
//	token,user,uid,"group1,group2"
//
// The groups column is optional. Build it with [LoadTokenFile] or
// [ParseTokenFile].
type TokenFile struct {
	users map[string]*User
}

var _ TokenAuthenticator = (*TokenFile)(nil)

// LoadTokenFile reads a token file.
func LoadTokenFile(path string) (*TokenFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tf, err := ParseTokenFile(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return tf, nil
}

// ParseTokenFile parses the CSV of a token file. Errors name the line,
// never a token. A token listed twice keeps its last line.
func ParseTokenFile(r io.Reader) (*TokenFile, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	tf := &TokenFile{users: make(map[string]*User)}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return tf, nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("line %d: %v", pe.Line, pe.Err)
			}
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		if len(rec) < 3 {
			return nil, fmt.Errorf("line %d: want at least 3 columns (token,user,uid), got %d", line, len(rec))
		}
		for i := range rec[:3] {
			rec[i] = strings.TrimSpace(rec[i])
		}
		if rec[0] == "" {
			return nil, fmt.Errorf("line %d: empty token", line)
		}
		if rec[1] == "" {
			return nil, fmt.Errorf("line %d: empty user name", line)
		}
		u := &User{Name: rec[1], UID: rec[2]}
		if len(rec) > 3 {
			for _, g := range strings.Split(rec[3], ",") {
				if g = strings.TrimSpace(g); g != "" {
					u.Groups = append(u.Groups, g)
				}
			}
		}
		tf.users[rec[0]] = u
	}
}

// AuthenticateToken looks the token up.
func (t *TokenFile) AuthenticateToken(_ context.Context, token string) (*User, bool, error) {
	u, ok := t.users[token]
	if !ok {
		return nil, false, nil
	}
	c := *u
	c.Groups = append([]string(nil), u.Groups...)
	return &c, true, nil
}
