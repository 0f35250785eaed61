"""game_scores: games played by players of several titles (the paper's ``LoL#Corrie#20150301``).

Each event is one finished game: which title, which player, when (millisecond
precision, from 2015-03-01, evenings busier than mornings), whether the player
won and their KDA ((kills + assists) / deaths). Activity is skewed the way it is
on real platforms: players are ranked by a Zipf law (exponent 1.1), so the top
10 % of players play most games; each player has a favourite title. The paper's
four March games are in the data verbatim (Corrie lost LoL on 1 March with KDA
4.25 and won on the 3rd with 9.50; Jo and Sam won on the 2nd with 7.00), so
"how many games of LoL did Corrie win in March" (G04) has a known anchor.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.datasets._frames import US_PER_DAY, strings, us, utc
from workbench.datasets.model import QueryIntent

ENTITY = ["game", "player"]
TIME = "time"
MEASURES = ["win", "kda"]
UNITS = {"win": "bool", "kda": "(kills+assists)/deaths"}
OPTIONS: dict[str, object] = {}
DESCRIPTION = (
    "One event per finished game from 2015-03-01: title, player, result and KDA; "
    "Zipf-skewed player activity; the paper's LoL#Corrie#20150301 example."
)

START = "2015-03-01"
GAMES = np.array(
    [
        "LoL",
        "Starcraft",
        "Dota2",
        "Overwatch",
        "Hearthstone",
        "Fortnite",
        "Valorant",
        "RocketLeague",
    ],
    dtype=object,
)
POPULARITY = np.array([0.30, 0.12, 0.15, 0.12, 0.08, 0.10, 0.08, 0.05])
ZIPF_EXPONENT = 1.1
# the paper's named players and the activity rank each gets (1 = busiest)
NAMED_RANKS = {"Jo": 2, "Corrie": 5, "Sam": 9, "Eriko": 17}
# the paper's March games: (game, player, time, win, kda)
PAPER_GAMES = [
    ("LoL", "Corrie", "2015-03-01T19:45:01.001Z", False, 4.25),
    ("LoL", "Jo", "2015-03-02T20:10:12.500Z", True, 7.00),
    ("LoL", "Sam", "2015-03-02T21:03:44.120Z", True, 7.00),
    ("LoL", "Corrie", "2015-03-03T18:30:09.042Z", True, 9.50),
]
_ADJ = [
    "Silent",
    "Blue",
    "Rapid",
    "Lucky",
    "Crimson",
    "Shadow",
    "Iron",
    "Frost",
    "Wild",
    "Golden",
    "Dark",
    "Brave",
    "Quiet",
    "Swift",
    "Mad",
    "Tiny",
    "Cosmic",
    "Pixel",
    "Neon",
    "Stormy",
]
_NOUN = [
    "Fox",
    "Otter",
    "Raven",
    "Tiger",
    "Wolf",
    "Panda",
    "Falcon",
    "Badger",
    "Viper",
    "Moose",
    "Lynx",
    "Gecko",
    "Yeti",
    "Koala",
    "Shark",
    "Mantis",
    "Bison",
    "Heron",
    "Comet",
    "Golem",
]
# share of the day's games per UTC hour: quiet mornings, busy evenings
_HOURLY = np.array(
    [5, 4, 3, 2, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 4, 5, 6, 7, 9, 10, 10, 9, 8, 6], dtype=float
)


def player_names(n: int, rng: np.random.Generator) -> np.ndarray:
    """n unique gamer tags; the paper's players at their ranks, the rest shuffled."""
    base = len(_ADJ) * len(_NOUN)
    tags = np.array(
        [
            f"{_ADJ[k % len(_ADJ)]}{_NOUN[(k // len(_ADJ)) % len(_NOUN)]}"
            + (str(k // base) if k >= base else "")
            for k in rng.permutation(n)
        ],
        dtype=object,
    )
    for name, rank in NAMED_RANKS.items():
        tags[min(rank, n) - 1] = name
    return tags


def generate(n_events: int, rng: np.random.Generator) -> tuple[pd.DataFrame, list[QueryIntent]]:
    n_players = int(np.clip(4 * np.sqrt(n_events), 30, 20_000))
    n_days = int(np.clip(n_events // 100, 61, 1095))  # at least March and April 2015
    names = player_names(n_players, rng)
    ranks = np.arange(1, n_players + 1)
    weight = ranks**-ZIPF_EXPONENT
    player = rng.choice(n_players, size=n_events, p=weight / weight.sum())
    favourite = rng.choice(len(GAMES), size=n_players, p=POPULARITY)
    for name in ("Corrie", "Jo", "Sam"):
        favourite[names == name] = 0  # LoL, as in the paper
    other = rng.choice(len(GAMES), size=n_events, p=POPULARITY)
    game = np.where(rng.random(n_events) < 0.7, favourite[player], other)

    day = rng.integers(0, n_days, n_events)
    hour = rng.choice(24, size=n_events, p=_HOURLY / _HOURLY.sum())
    t_us = (
        us(START)
        + day * US_PER_DAY
        + hour * 3_600_000_000
        + rng.integers(0, 3_600_000, n_events) * 1000
    )  # millisecond precision

    skill = rng.beta(6, 6, n_players)
    win = rng.random(n_events) < skill[player]
    kills = rng.poisson(4 + 3 * win)
    deaths = rng.poisson(6 - 2 * win)
    assists = rng.poisson(6 + 2 * win)
    kda = np.round((kills + assists) / np.maximum(deaths, 1), 2)

    # the paper's four games replace the first four generated ones (the size stays the same)
    game_index = {g: i for i, g in enumerate(GAMES)}
    for i, (g, p, when, w, k) in enumerate(PAPER_GAMES):
        game[i], player[i], t_us[i] = game_index[g], int(np.flatnonzero(names == p)[0]), us(when)
        win[i], kda[i] = w, k

    # key order (title, then player, alphabetically; then time), and one player never finishes two
    # games of one title in the same millisecond: repeats are nudged 1 ms later
    g_rank = np.argsort(np.argsort(GAMES))[game]
    p_rank = np.argsort(np.argsort(names))[player]
    t0 = us(START) // 1000
    big = np.int64(10) ** 11  # > span in ms; groups never touch
    key = (g_rank.astype(np.int64) * n_players + p_rank) * big + (t_us // 1000 - t0)
    order = np.argsort(key, kind="stable")  # one int64 sort (3× faster than lexsort)
    key = key[order]
    idx = np.arange(n_events, dtype=np.int64)
    key = np.maximum.accumulate(key - idx) + idx
    t_sorted = (key % big + t0) * 1000

    events = pd.DataFrame(
        {
            "game": strings(GAMES[game[order]]),
            "player": strings(names[player[order]]),
            "time": utc(t_sorted),
            "win": win[order].astype(bool),
            "kda": kda[order],
        }
    )
    queries = [
        QueryIntent(
            "corrie_lol_march",
            "range",
            "How many games of LoL did Corrie win in March 2015?",
            entity={"game": "LoL", "player": "Corrie"},
            start="2015-03-01",
            end="2015-04-01",
            measures=("win",),
            aggregate="count_where:win",
            weight=3.0,
        ),
        QueryIntent(
            "lol_march",
            "range",
            "Every LoL game in March 2015 (all players)",
            entity={"game": "LoL"},
            start="2015-03-01",
            end="2015-04-01",
            weight=3.0,
        ),
        QueryIntent(
            "corrie_latest",
            "latest",
            "Corrie's last 10 LoL games",
            entity={"game": "LoL", "player": "Corrie"},
            limit=10,
            weight=2.0,
        ),
        QueryIntent(
            "games_on_day",
            "slice",
            "Every game of every title on 2 March 2015",
            start="2015-03-02",
            end="2015-03-03",
            weight=1.0,
        ),
    ]
    return events, queries
