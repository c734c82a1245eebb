// Package codec holds kapi's serializers and content negotiation.
//
// A [Registry] belongs to one server: it maps media types to [Serializer]s,
// picks the response type from an Accept header ([Registry.Negotiate], 406
// when nothing fits) and the decoder from a Content-Type
// ([Registry.ForContentType], 415 when unknown). Serializers that can frame
// watch streams also implement [WatchEncoder], so an event's object is
// encoded once per media type and the bytes are shared by every watcher.
//
// JSON decoding is case-sensitive and keeps integers as int64, as
// kube-apiserver's is; unknown and duplicate fields are reported separately
// from hard errors so that field validation can warn or reject.
package codec
