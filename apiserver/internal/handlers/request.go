package handlers

import "net/http"

// Request is what routing learned about one API request.
type Request struct {
	Writer  http.ResponseWriter
	Request *http.Request

	Verb        string // get, list, watch, create, update, patch, delete, deletecollection
	Namespace   string
	Name        string
	Subresource string
}
