// Package splice holds the primitives the server answers JSON with
// straight from stored values: a stored value is the object's JSON with
// placeholders (the resourceVersion, a shared managedFields) that an
// answer replaces with bytes, without decoding or encoding the object.
// It sits at the bottom of the response path, under the response writers
// and the stores' write path, and works on bytes alone: which marker to
// look for and what to put in its place are its callers' to say.
package splice
