package patch

import "github.com/kapi-dev/kapi/schema"

// StrategicMergeWork runs a strategic merge patch and returns the element
// comparisons and index look-ups its list merges made.
func StrategicMergeWork(doc, p []byte, s *schema.Schema) (int, error) {
	original, err := decodeObject(doc)
	if err != nil {
		return 0, err
	}
	pm, err := decodeObject(p)
	if err != nil {
		return 0, err
	}
	mg := &merger{}
	_, err = mg.mergeMap(original, pm, s)
	return mg.work, err
}
