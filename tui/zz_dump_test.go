package tui
import ("fmt";"os";"testing";"strconv";"github.com/rdmatour/rdmatour/steps")
func TestZZDump(t *testing.T){
	w,_:=strconv.Atoi(os.Getenv("W")); h,_:=strconv.Atoi(os.Getenv("H"))
	lang:=steps.Lang(os.Getenv("LNG")); demo:=os.Getenv("DEMO")=="1"
	m:=goldenModel(t,demo,lang,w,h)
	for _,k:=range os.Getenv("KEYS"){ press(t,m,string(k)) }
	fmt.Println(m.render())
}
