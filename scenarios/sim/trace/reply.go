package trace

import "regexp"

// lockstep's own errors, as a command's reply shows them (the simulator
// makes them: a server down, a network partition), and their Chinese. The
// client's and the server's own words (i/o timeout, connection refused,
// CROSSSLOT, context deadline exceeded) stay as they came.
var replyZH = []struct {
	re *regexp.Regexp
	zh string
}{
	{regexp.MustCompile(`^\(error\) (\S+) cannot reach (\S+): i/o timeout \(network partition\)$`),
		"(error) 网络分区：$1 连不上 $2（i/o timeout）"},
	{regexp.MustCompile(`^\(error\) (\S+)'s command ran on (\S+), but the reply was lost: i/o timeout \(network partition\)$`),
		"(error) $1 的命令在 $2 上执行了，应答却因网络分区丢失（i/o timeout）"},
	{regexp.MustCompile(`^\(error\) dial (\S+): connection refused: server is down$`),
		"(error) $1 已宕机，连不上（connection refused）"},
	{regexp.MustCompile(`^\(error\) connection to (\S+) lost: server is down$`),
		"(error) $1 已宕机，连接中断"},
	{regexp.MustCompile(`^\(error\) dial (\S+): server is down$`),
		"(error) $1 已宕机，连不上"},
}

// ReplyIn is the event's reply in lang: in Chinese, an error lockstep
// made itself is said in Chinese (issue #41: "A cannot reach redis-4: i/o
// timeout (network partition)" in the reply column of a Chinese trace);
// any other reply is the server's or the client's, and stays.
func (e Event) ReplyIn(lang string) string {
	if lang != "zh" {
		return e.Reply
	}
	for _, r := range replyZH {
		if r.re.MatchString(e.Reply) {
			return r.re.ReplaceAllString(e.Reply, r.zh)
		}
	}
	return e.Reply
}
