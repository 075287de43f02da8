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

// TestGenericRendering: before the run a statement shows the screen's
// call (Either's screen side), the program's variables and constants
// where the values will be, a Named struct by its variable, and its hint.
func TestGenericRendering(t *testing.T) {
	wr := Ref(Named("wr", Compound("struct ibv_send_wr", F("wr_id", Dec(300, "")),
		F("sg_list", Ref(Compound("struct ibv_sge", F("addr", Hex(0x7f00, "(uintptr_t)buf"))))))))
	tests := []struct {
		name    string
		stmt    Stmt
		generic string
	}{
		{"named struct and hint", Must("ibv_post_send", Call("ibv_post_send", C("qp"), wr, C("&bad_send"))).Hinted("IBV_WR_SEND */ x"),
			"ibv_post_send(qp, &wr, &bad_send); /* IBV_WR_SEND * / x */"},
		{"constant by name", MustPtr("ibv_create_cq", "cq", Call("ibv_create_cq", C("id->verbs"), Dec(16, "CQ_DEPTH"))).Returned("{ .cqe = 16 }"),
			"cq = ibv_create_cq(id->verbs, CQ_DEPTH);"},
		{"number without a name", S(Call("f", Dec(4096, ""), Hex(0x10, ""))), "f(4096, 0x10);"},
		{"the screen's side of Either", S(Either(Call("ibv_poll_cq", C("cq"), C("1"), C("&wc")), Call("poll_one", C("cq")))),
			"ibv_poll_cq(cq, 1, &wc);"},
		{"value by its expression", S(Call("rdma_bind_addr", C("listener"), Value("(struct sockaddr *)&x", "addr->ai_addr"))),
			"rdma_bind_addr(listener, addr->ai_addr);"},
		{"operator", S(Op(Call("be64toh", C("*doorbell")), "==", Dec(1, "DOORBELL_VALUE"))), "be64toh(*doorbell) == DOORBELL_VALUE;"},
	}
	for _, tt := range tests {
		if got := tt.stmt.Generic(); got != tt.generic {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.generic)
		}
	}
	if got := wr.In(Actual); got != "&(struct ibv_send_wr){ .wr_id = 300, .sg_list = &(struct ibv_sge){ .addr = 0x7f00 } }" {
		t.Errorf("Named changes the actual rendering: %s", got)
	}
	stmts := []Stmt{S(C("a()")), S(C("b()")).Only(ScreenOnly), S(C("c()")).Only(ExportOnly)}
	if got := Lines(stmts, Generic); got != "a();\nb();" {
		t.Errorf("Generic shows what the screen shows: %q", got)
	}
}
