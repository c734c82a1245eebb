// Package auth carries who is making a request: the authenticated user
// on the request's context, for authorizers, admission, audit and
// fairness between users.
//
// The server puts the user there after authentication; hooks read it
// with UserFrom.
package auth
