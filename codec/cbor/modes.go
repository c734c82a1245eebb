package cbor

import (
	"errors"
	"io"
	"reflect"

	"github.com/fxamacker/cbor/v2"
	kjson "sigs.k8s.io/json"
)

// baseEncOptions are kube-apiserver's CBOR encoding options. Each choice
// keeps the bytes identical to what k8s.io/apimachinery writes for the
// same object.
func baseEncOptions() cbor.EncOptions {
	return cbor.EncOptions{
		// RFC 8949 4.2.1 order: the output is deterministic.
		Sort: cbor.SortBytewiseLexical,
		// Equal float32 and float64 values encode to the same bytes.
		ShortestFloat: cbor.ShortestFloat16,
		// JSON cannot carry these; refuse them as the JSON encoder does.
		NaNConvert:    cbor.NaNConvertReject,
		InfConvert:    cbor.InfConvertReject,
		BigIntConvert: cbor.BigIntConvertReject,
		Time:          cbor.TimeRFC3339Nano,
		TimeTag:       cbor.EncTagNone,
		IndefLength:   cbor.IndefLengthForbidden,
		// nil and empty slices and maps stay distinct, as in JSON.
		NilContainers: cbor.NilContainerAsNull,
		TagsMd:        cbor.TagsAllowed,
		OmitEmpty:     cbor.OmitEmptyGoValue,
		// Go strings are not checked for UTF-8, so they go out as byte
		// strings, which are always valid.
		String:               cbor.StringToByteString,
		FieldName:            cbor.FieldNameToByteString,
		ByteArray:            cbor.ByteArrayToArray,
		ByteSliceLaterFormat: cbor.ByteSliceLaterFormatBase64,
		BinaryMarshaler:      cbor.BinaryMarshalerNone,
		TextMarshaler:        cbor.TextMarshalerTextString,
	}
}

// decOptions are kube-apiserver's CBOR decoding options, used to read a
// body into generic values (maps, slices, strings, int64, float64, bool,
// nil) before it is handed to the JSON decoder.
func decOptions() cbor.DecOptions {
	return cbor.DecOptions{
		// Duplicate keys make a map invalid: the body is rejected outright.
		DupMapKey:        cbor.DupMapKeyEnforcedAPF,
		TimeTag:          cbor.DecTagOptional,
		MaxNestedLevels:  10000,
		MaxArrayElements: 2147483647,
		MaxMapPairs:      2097152,
		IndefLength:      cbor.IndefLengthAllowed,
		TagsMd:           cbor.TagsAllowed,
		// Unsigned integers beyond int64 fail rather than lose precision.
		IntDec:                   cbor.IntDecConvertSignedOrFail,
		MapKeyByteString:         cbor.MapKeyByteStringForbidden,
		DefaultMapType:           reflect.TypeOf(map[string]any(nil)),
		UTF8:                     cbor.UTF8RejectInvalid,
		FieldNameMatching:        cbor.FieldNameMatchingCaseSensitive,
		DefaultByteStringType:    reflect.TypeOf(""),
		ByteStringToString:       cbor.ByteStringToStringAllowedWithExpectedLaterEncoding,
		FieldNameByteString:      cbor.FieldNameByteStringAllowed,
		UnrecognizedTagToAny:     cbor.UnrecognizedTagContentToAny,
		TimeTagToAny:             cbor.TimeTagToRFC3339Nano,
		ByteStringToTime:         cbor.ByteStringToTimeAllowed,
		NaN:                      cbor.NaNDecodeForbidden,
		Inf:                      cbor.InfDecodeForbidden,
		ByteStringExpectedFormat: cbor.ByteStringExpectedBase64,
		BignumTag:                cbor.BignumTagForbidden,
		SimpleValues:             simpleValues(),
		BinaryUnmarshaler:        cbor.BinaryUnmarshalerNone,
		TextUnmarshaler:          cbor.TextUnmarshalerTextString,
	}
}

// simpleValues accepts false, true and null only; 24-31 are ill-formed
// and the library rejects them already.
func simpleValues() *cbor.SimpleValueRegistry {
	var opts []func(*cbor.SimpleValueRegistry) error
	for sv := 0; sv <= 255; sv++ {
		if (sv >= 20 && sv <= 22) || (sv >= 24 && sv <= 31) {
			continue
		}
		opts = append(opts, cbor.WithRejectedSimpleValue(cbor.SimpleValue(sv)))
	}
	r, err := cbor.NewSimpleValueRegistryFromDefaults(opts...)
	if err != nil {
		panic(err) // the options above are constant
	}
	return r
}

// modes holds the built encoder and decoder configurations. Building them
// validates the options and caches nothing global, so each Serializer value
// shares one immutable set through defaultModes.
type modes struct {
	// base has no JSON transcoding; it encodes what transcoding produced.
	base cbor.EncMode
	enc  cbor.UserBufferEncMode
	dec  cbor.DecMode
}

var defaultModes = newModes()

func newModes() *modes {
	m := &modes{}
	var err error
	if m.base, err = baseEncOptions().EncMode(); err != nil {
		panic(err)
	}
	opts := baseEncOptions()
	opts.JSONMarshalerTranscoder = transcoder{m.base}
	if m.enc, err = opts.UserBufferEncMode(); err != nil {
		panic(err)
	}
	if m.dec, err = decOptions().DecMode(); err != nil {
		panic(err)
	}
	return m
}

// transcoder encodes a value that only knows how to write JSON: its JSON
// is decoded (keeping integers as int64) and encoded again as CBOR, as
// kube-apiserver does for such types.
type transcoder struct{ em cbor.EncMode }

func (t transcoder) Transcode(dst io.Writer, src io.Reader) error {
	var v any
	dec := kjson.NewDecoderCaseSensitivePreserveInts(src)
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return errors.New("extraneous data after JSON value")
	}
	b, err := t.em.Marshal(v)
	if err != nil {
		return err
	}
	_, err = dst.Write(b)
	return err
}
