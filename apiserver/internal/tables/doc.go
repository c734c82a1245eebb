// Package tables holds what a Table or a PartialObjectMetadata answer is
// made of, as kube-apiserver sends them: the meta.k8s.io wire types, the
// names of the transformations a client asks for in Accept, and the
// rendering of cells (values by column type, dates as the ages kubectl
// shows). It sits on the response path after the verb's handler, where
// an answer is rendered in the transformation negotiated for it; which
// columns a kind has, and which object a row is of, are the server's to
// say.
package tables
