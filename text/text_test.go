package text

import (
	"strings"
	"testing"
)

func TestParseLang(t *testing.T) {
	for _, l := range []Lang{EN, ZH, Both} {
		if got, err := ParseLang(l.String()); err != nil || got != l {
			t.Errorf("ParseLang(%q) = %q, %v", l, got, err)
		}
	}
	if _, err := ParseLang("fr"); err == nil || !strings.Contains(err.Error(), "use en, zh or both") {
		t.Errorf("ParseLang(fr): %v", err)
	}
}

func TestIn(t *testing.T) {
	tx := Text{EN: "event", ZH: "事件"}
	if tx.In(EN) != "event" || tx.In(ZH) != "事件" || tx.In(Both) != "event" || Same("0x1").In(ZH) != "0x1" {
		t.Errorf("In: %q %q %q", tx.In(EN), tx.In(ZH), tx.In(Both))
	}
}

func TestLangFromEnvAndChoice(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		env     map[string]string
		want    Lang
		primary Lang
	}{
		{nil, EN, EN},
		{map[string]string{"LANG": "zh_CN.UTF-8"}, ZH, ZH},
		{map[string]string{"LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}, EN, EN},
		{map[string]string{"LC_MESSAGES": "zh_TW", "LANG": "C"}, ZH, ZH},
	}
	for _, tt := range tests {
		if got := LangFromEnv(env(tt.env)); got != tt.want || got.Primary() != tt.primary {
			t.Errorf("%v: %q (primary %q), want %q", tt.env, got, got.Primary(), tt.want)
		}
	}
	if got := Both.Each(); len(got) != 2 || got[0] != EN || got[1] != ZH || Both.Primary() != EN {
		t.Errorf("both: Each %v, Primary %v", got, Both.Primary())
	}
}
