package record

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// TestResultNamesKeepTheirEnglishKey: a result is stored with its English
// where versions 1 and 2 kept it, its Chinese beside it; an old line
// (English only) still reads.
func TestResultNamesKeepTheirEnglishKey(t *testing.T) {
	out := steps.Outcome{Call: "x", Results: []steps.KV{{Name: text.Text{EN: "event", ZH: "事件"}, Value: text.Same("ESTABLISHED")}}}
	b, err := json.Marshal(encodeOutcome(out))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `{"Name":"event","NameZH":"事件","Value":"ESTABLISHED"}`) {
		t.Errorf("stored as %s", b)
	}
	var back outcomeJSON
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if got := back.decode().Results; len(got) != 1 || got[0] != out.Results[0] {
		t.Errorf("read back %+v, want %+v", got, out.Results)
	}
	var old outcomeJSON
	if err := json.Unmarshal([]byte(`{"Call":"x","Results":[{"Name":"event","Value":"ESTABLISHED"}]}`), &old); err != nil {
		t.Fatal(err)
	}
	if got := old.decode().Results; len(got) != 1 || got[0].Name.In(text.ZH) != "event" || got[0].Value.EN != "ESTABLISHED" {
		t.Errorf("an old line read as %+v", got)
	}
}
