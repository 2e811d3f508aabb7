module github.com/tttbot/ttt-bot

go 1.26.8
