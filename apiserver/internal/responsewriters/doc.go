// Package responsewriters writes the bytes of an API answer. It sits at
// the end of the request path, after a verb's handler has its result:
// the handler hands it a body (a complete one, or a list item by item)
// and it sends the headers and the bytes, gzipped when the client asks
// for it and the body is large; or the handler hands it an error and it
// writes the Status in a media type the client accepts.
//
// It knows nothing of resources or kinds: what it needs of them (the
// codec registry, the Go types an answer holds) comes as parameters.
// Its buffers and compressors are pooled in a [Bodies] the server owns,
// so the package itself holds no state.
package responsewriters
