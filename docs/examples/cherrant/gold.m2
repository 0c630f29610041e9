S 我 昨 天 去 了 商 店 买 东 西 了 。
A 4 5|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 10 11|||R|||-NONE-|||REQUIRED|||-NONE-|||1

S 他 非 常 喜 欢 看 书 ， 每 天 都 看 书 两 个 小 时 。
A 12 17|||W|||两 个 小 时 书|||REQUIRED|||-NONE-|||0
A 13 13|||M|||看|||REQUIRED|||-NONE-|||1

S 这 个 问 题 很 难 ， 我 们 应 该 要 想 一 个 好 办 法 。
A 11 12|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 11 12|||R|||-NONE-|||REQUIRED|||-NONE-|||1

S 我 的 妈 妈 做 饭 做 得 很 好 吃 。
A 1 5|||W|||妈 妈 做 的|||REQUIRED|||-NONE-|||0
A 6 8|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 10 11|||R|||-NONE-|||REQUIRED|||-NONE-|||1

S 今 天 天 气 很 好 。
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1

S 因 为 下 雨 ， 所 以 我 们 没 有 去 公 园 玩 了 。
A 15 16|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 5 7|||R|||-NONE-|||REQUIRED|||-NONE-|||1
A 15 16|||R|||-NONE-|||REQUIRED|||-NONE-|||1

