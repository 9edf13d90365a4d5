"""Tokens that break quicktok's BPE: "irregular" tokens of a vocabulary.

quicktok's BPE is exact on a vocabulary where every token is what rank BPE
builds from its own bytes, through merges of rising rank (as a trained BPE
vocabulary is: cl100k, o200k, Qwen2, tekken). Vocabularies extended by hand
break that for some tokens, which are irregular:

* *unreachable*: no merges build it (Llama 3 `` việc``, Qwen3.5/3.6 ``俱乐部``):
  tiktoken emits it only where a whole pre-token equals it;
* *out of order*: built through a part ranked after itself (Llama 3 ``.:.:``,
  Qwen3.5/3.6 ``人力资源``).

Llama 3 has 695, Qwen3.5/3.6 267. quicktok got words near them wrong (Llama 3
`` việcc``: ``[ việc, c]``, tiktoken ``[ vi, ệ, cc]``), even words that hold none
(``ннапример``). So :class:`~.engines.quickranks.CheckedEngine` runs quicktok over the
vocabulary *without* them (then every token is regular, and any pre-token that
holds no irregular token's text gets tiktoken's ids: rank BPE never applies
their merges there), and hands the words that do hold one to tiktoken.

Finding them is slow (rank BPE of every token, in Python);
the bundled vocabularies' lists are stored here, keyed by their data, and found
at load for any other. ``tools/irregular_table.py`` (in the source repository, not
the package) prints the table for the installed packages.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass


def find_irregular(ranks: dict[bytes, int]) -> list[int]:
    """The ids (rank values) of ``ranks``' irregular tokens, ascending: those that
    rank BPE of their own bytes does not build, or builds through a merge ranked
    below one made before it."""
    found = []
    for data, rank in ranks.items():
        if len(data) < 3:  # one merge of two bytes: regular
            continue
        parts = [data[i : i + 1] for i in range(len(data))]
        last = -1
        while len(parts) > 1:
            best = None
            for i in range(len(parts) - 1):
                merged = ranks.get(parts[i] + parts[i + 1])
                if merged is not None and (best is None or merged < best[0]):
                    best = (merged, i)
            if best is None or best[0] < last:
                break
            last, i = best
            parts[i : i + 2] = [parts[i] + parts[i + 1]]
        if len(parts) > 1:
            found.append(rank)
    return sorted(found)


@dataclass(frozen=True)
class Irregular:
    """A vocabulary's irregular tokens and what finds them in text."""

    #: Their bytes, by id (what decodes them where an engine holds them hidden).
    tokens: dict[int, bytes]
    #: Each one's whole characters: what any text that holds it holds.
    texts: tuple[str, ...]
    #: Where each text is looked up from (an index into it): its rarest pair of
    #: characters that four characters (all of a shorter text) can start at.
    anchors: tuple[int, ...]

    @property
    def ids(self) -> tuple[int, ...]:
        """Their ids, ascending."""
        return tuple(sorted(self.tokens))


def irregular_tokens(ranks: dict[bytes, int], ids: Iterable[int]) -> Irregular | None:
    """The :class:`Irregular` of ``ranks`` with irregular ``ids``, or ``None`` when one of
    them lies within one or two characters (no text check finds it: then tiktoken alone)."""
    wanted = set(ids)
    if not wanted:
        return Irregular({}, (), ())
    tokens = {rank: data for data, rank in ranks.items() if rank in wanted}
    # A token may start or end inside a character: text that holds it holds the rest.
    texts = tuple(data.decode("utf-8", errors="ignore") for data in tokens.values())
    if "" in texts:
        return None
    common = _common_pairs(ranks)
    return Irregular(tokens, texts, tuple(_anchor(text, common) for text in texts))


# Pairs of characters in the tokens of the first ranks (the pairs a BPE trainer met most)
# tell how common a pair is in text.
_FIRST_RANKS = 20_000


def _common_pairs(ranks: dict[bytes, int]) -> Counter[str]:
    """How many of the first ranked tokens hold each pair of characters."""
    lowest = min(ranks.values())
    counts: Counter[str] = Counter()
    for data, rank in ranks.items():
        if rank < lowest + _FIRST_RANKS:
            text = data.decode("utf-8", errors="ignore")
            counts.update({text[i : i + 2] for i in range(len(text) - 1)})
    return counts


def _anchor(text: str, common: Counter[str]) -> int:
    """Where four characters of ``text`` (all of a shorter one) start at its rarest pair
    of characters: the text is looked up only where such a pair stands."""
    size = min(len(text), 4)
    if size == 1:
        return 0
    return min(range(len(text) - size + 1), key=lambda i: common[text[i : i + 2]])


def file_key(path: object) -> str | None:
    """Key of a ranks file: its SHA-256, or ``None`` when ``path`` is not a file."""
    if not isinstance(path, (str, os.PathLike)) or not os.path.isfile(path):
        return None
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def quicktok_key(encoding: str) -> str:
    """Key of an encoding bundled with quicktok (its data comes with its version)."""
    import quicktok

    return f"quicktok {quicktok.__version__} {encoding}"


def stored_irregular(key: str | None) -> tuple[int, ...] | None:
    """The stored list for ``key`` (:func:`file_key`, :func:`quicktok_key`), or
    ``None`` when those ranks are not one of the bundled vocabularies'."""
    ids = None if key is None else _STORED.get(key)
    return None if ids is None else tuple(map(int, ids.split()))


# Ranks' key -> their irregular ids (as tools/irregular_table.py prints them for the installed packages).
_STORED: dict[str, str] = {
    # cl100k_base: 0
    "quicktok 0.4.0 cl100k_base": "",
    # o200k_base: 0
    "quicktok 0.4.0 o200k_base": "",
    # o200k_harmony: 0
    "quicktok 0.4.0 o200k_harmony": "",
    # llama3: 695
    "quicktok 0.4.0 llama3": (
        "100421 100769 100827 100937 100999 101167 101227 101309 101378 101503 101673 101798 101848 101891 "
        "102507 102530 102536 102564 102665 102909 103003 103084 103147 103157 103425 103434 103541 103562 "
        "103692 103753 103754 103792 103836 103870 104032 104033 104058 104061 104121 104199 104267 104392 "
        "104516 104532 104700 104832 104837 104909 104912 104922 104937 105046 105299 105314 105356 105370 "
        "105435 105670 105672 105744 105969 105983 106091 106174 106216 106234 106291 106329 106350 106371 "
        "106527 106535 106710 106787 106791 106801 106920 106945 107000 107102 107116 107193 107197 107286 "
        "107395 107421 107453 107539 107562 107572 107617 107658 107667 107695 107716 107737 107741 107811 "
        "107818 107829 107967 107996 108123 108294 108303 108401 108457 108497 108501 108512 108531 108564 "
        "108569 108577 108601 108643 108644 108653 108831 108866 108918 108921 108925 108980 108998 109009 "
        "109109 109133 109179 109252 109345 109414 109469 109597 109621 109658 109689 109693 109702 109744 "
        "110043 110107 110120 110143 110150 110324 110383 110387 110410 110486 110525 110532 110563 110600 "
        "110642 110655 110692 110728 110734 110785 110920 110939 110958 111040 111043 111045 111067 111096 "
        "111112 111136 111223 111253 111256 111317 111365 111367 111493 111568 111617 111620 111643 111691 "
        "111750 111797 111841 111852 111876 111877 111949 111954 111962 111994 112063 112162 112196 112206 "
        "112224 112267 112304 112328 112353 112354 112357 112487 112502 112514 112556 112620 112623 112668 "
        "112728 112759 112803 112806 112811 112907 112915 112969 112978 113004 113011 113044 113050 113056 "
        "113065 113077 113095 113134 113190 113197 113201 113225 113229 113234 113315 113399 113490 113525 "
        "113632 113646 113658 113720 113774 113860 113878 113916 113943 113983 113988 113990 114031 114040 "
        "114091 114117 114120 114148 114178 114185 114195 114282 114283 114324 114410 114429 114456 114518 "
        "114533 114540 114569 114573 114692 114750 114767 114833 114836 114843 114848 114860 114885 114991 "
        "115002 115016 115026 115040 115060 115091 115129 115164 115183 115206 115216 115269 115272 115326 "
        "115361 115378 115385 115431 115451 115452 115456 115487 115614 115635 115697 115705 115721 115722 "
        "115723 115757 115806 115944 115970 115976 115977 115979 115994 116005 116014 116040 116055 116144 "
        "116171 116182 116312 116452 116459 116494 116546 116552 116627 116674 116676 116745 116792 116841 "
        "116934 116940 116983 117001 117011 117072 117098 117188 117247 117319 117325 117347 117352 117380 "
        "117391 117426 117458 117468 117592 117649 117691 117749 117780 117794 117798 117857 117909 117922 "
        "117929 117955 118060 118062 118100 118174 118228 118260 118377 118406 118425 118452 118476 118496 "
        "118508 118513 118602 118659 118699 118751 118761 118793 118795 118805 118851 118854 118972 119000 "
        "119003 119054 119096 119162 119201 119243 119288 119293 119308 119322 119333 119362 119377 119403 "
        "119419 119422 119465 119477 119618 119655 119669 119709 119725 119750 119776 119785 119799 119830 "
        "119846 119850 119917 119927 119931 119946 119959 119973 119988 120005 120009 120015 120100 120102 "
        "120105 120121 120196 120232 120242 120260 120269 120316 120325 120338 120358 120375 120393 120405 "
        "120423 120454 120458 120525 120536 120538 120542 120546 120581 120584 120592 120621 120648 120663 "
        "120695 120702 120894 120909 120911 120928 120946 120959 120978 121004 121035 121080 121091 121135 "
        "121167 121209 121215 121235 121262 121267 121356 121357 121539 121563 121662 121671 121678 121680 "
        "121717 121744 121764 121818 121828 121849 121873 121878 121936 121973 122012 122032 122046 122047 "
        "122055 122059 122188 122228 122268 122301 122315 122318 122339 122359 122409 122410 122428 122549 "
        "122551 122601 122631 122639 122689 122690 122711 122746 122771 122812 122846 122847 122853 122883 "
        "122889 122941 122951 122956 122958 123046 123107 123178 123205 123278 123279 123368 123398 123416 "
        "123422 123468 123472 123508 123510 123563 123584 123611 123634 123636 123639 123677 123705 123745 "
        "123831 123844 123846 123913 123954 123965 123971 123981 123997 124016 124069 124078 124114 124151 "
        "124160 124205 124254 124292 124336 124352 124393 124419 124457 124459 124465 124467 124509 124555 "
        "124593 124595 124610 124621 124647 124691 124703 124723 124771 124779 124814 124833 124843 124891 "
        "124917 124942 124961 124971 125015 125058 125059 125143 125171 125265 125302 125355 125410 125437 "
        "125465 125491 125637 125654 125697 125700 125711 125728 125748 125759 125786 125791 125808 125814 "
        "125873 125925 125958 125971 126152 126173 126285 126295 126316 126332 126348 126357 126445 126457 "
        "126539 126545 126575 126626 126634 126647 126673 126715 126740 126754 126773 126778 126829 126984 "
        "127014 127018 127024 127034 127043 127100 127101 127172 127202 127213 127232 127246 127347 127349 "
        "127367 127371 127417 127453 127472 127493 127504 127531 127539 127577 127660 127667 127671 127711 "
        "127719 127748 127765 127865 127877 127896 127954 127968 127994 "
    ),
    # qwen3: 0
    "quicktok 0.4.0 qwen3": "",
    # qwen3.6: 267
    "8dde380a6405e935f5de16a99eb61c824f3f814dd1ed298784c72babb7a03cdd": (
        "99655 104328 105115 106200 106972 107151 107517 108918 109160 111843 113776 115364 116769 119407 "
        "123613 123771 124398 124601 128702 129358 130162 130381 134096 135117 136382 136706 137091 137800 "
        "138563 140301 140953 141782 142767 143243 145263 146698 146914 147904 147906 150146 151741 152515 "
        "152554 152935 153190 153440 155537 155791 156000 156065 156130 156516 156611 157094 157289 157513 "
        "158151 159782 160972 161562 162453 162454 162769 162854 163499 164067 164284 164333 164876 165283 "
        "166024 166186 166587 167460 167525 167809 168096 168665 170088 170272 170315 171852 172003 172420 "
        "172760 173559 173947 174087 175399 176078 176180 176253 176336 177046 177528 177548 178377 178519 "
        "178871 179115 179846 179968 180319 180511 180844 180860 181173 181213 181237 181311 181536 181811 "
        "181907 182054 182449 182730 182875 183000 183972 184040 184069 184649 184693 184773 184961 184996 "
        "185452 186279 186864 187073 187438 188013 188501 188571 188580 188986 191714 191899 192299 192584 "
        "192732 192740 192878 193028 193107 193162 195538 195549 196502 196741 198057 198811 198962 199111 "
        "200050 200380 200407 200500 200775 200893 201090 201119 202857 204204 204256 204621 204656 204861 "
        "204864 206716 206765 207238 207396 207801 208513 208859 208897 209344 209891 210018 210362 210731 "
        "211376 211819 212945 214542 214728 214762 214963 215484 215690 216066 216289 216341 216699 216820 "
        "216972 217251 217581 217903 218141 220518 220735 221461 221674 221935 223164 223387 223681 223718 "
        "223934 223988 223989 224224 224225 224226 224227 224304 224382 225088 225899 226330 226801 226839 "
        "226977 227464 228239 228776 228842 228977 229074 229310 229362 229503 229601 229883 230068 230366 "
        "231327 231549 232048 232181 232629 232886 234921 236042 236266 236386 237549 237927 238468 239121 "
        "240140 240293 241331 241885 242310 242919 242992 243982 244906 245036 245465 245955 246281 246394 "
        "246487 "
    ),
    # mistral-tekken: 0
    "eccd1665d2e477697c33cb7f0daa6f6dfefc57a0a6bceb66d4be52952f827516": "",
}
