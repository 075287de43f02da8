package cprint

import "testing"

func TestRenderings(t *testing.T) {
	sge := Ref(Compound("struct ibv_sge", F("addr", Hex(0x7f00, "(uintptr_t)buf")), F("length", Dec(42, "strlen(buf) + 1")), F("lkey", Hex(0x12, "mr->lkey"))))
	tests := []struct {
		name            string
		stmt            Stmt
		screen, program string
	}{
		{"checked call", Must("ibv_post_recv", Call("ibv_post_recv", C("qp"), sge, C("&bad"))).Returned("0"),
			"ibv_post_recv(qp, &(struct ibv_sge){ .addr = 0x7f00, .length = 42, .lkey = 0x12 }, &bad); /* = 0 */",
			`check(ibv_post_recv(qp, &(struct ibv_sge){ .addr = (uintptr_t)buf, .length = strlen(buf) + 1, .lkey = mr->lkey }, &bad), "ibv_post_recv");`},
		{"pointer", MustPtr("ibv_alloc_pd", "pd", Call("ibv_alloc_pd", C("id->verbs"))).Returned("{ .handle = 1 }"),
			"pd = ibv_alloc_pd(id->verbs); /* = { .handle = 1 } */",
			`if (!(pd = ibv_alloc_pd(id->verbs))) die("ibv_alloc_pd");`},
		{"helper in the program", S(Either(Call("ibv_poll_cq", C("cq"), C("1"), C("&wc")), Call("poll_one", C("cq")))).Returned("1: x */ y"),
			"ibv_poll_cq(cq, 1, &wc); /* = 1: x * / y */", "poll_one(cq);"},
		{"string", S(Call("printf", Str("a\"b\\c\n\x1b?"))), `printf("a\"b\\c\n\033\?");`, `printf("a\"b\\c\n\033\?");`},
	}
	for _, tt := range tests {
		if got := tt.stmt.Screen(); got != tt.screen {
			t.Errorf("%s: screen\n got %s\nwant %s", tt.name, got, tt.screen)
		}
		if got := tt.stmt.Program(); got != tt.program {
			t.Errorf("%s: program\n got %s\nwant %s", tt.name, got, tt.program)
		}
	}
}

func TestLinesFiltersByShow(t *testing.T) {
	stmts := []Stmt{S(C("a()")), S(C("b()")).Only(ScreenOnly), S(C("c()")).Only(ExportOnly)}
	if got := Lines(stmts, Actual); got != "a();\nb();" {
		t.Errorf("Actual: %q", got)
	}
	if got := Lines(stmts, Symbolic); got != "a();\nc();" {
		t.Errorf("Symbolic: %q", got)
	}
}
