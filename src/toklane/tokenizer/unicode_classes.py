"""The character classes a compiled pre-tokeniser needs, as the reference regex engine sees them.

Pre-tokenisation patterns name ``\\p{L}``, ``\\p{M}``, ``\\p{N}``, ``\\p{P}``,
``\\p{S}`` and ``\\s``; which code points those hold depends on the Unicode
version of the engine that runs the pattern (Python's ``unicodedata`` is
Unicode 14, HF ``tokenizers``' Oniguruma 16, the ``regex`` package newer still:
thousands of code points differ). A compiled pre-tokeniser must see them as the
tokenizer's reference does, so :data:`RUNS` is read from HF ``tokenizers``
itself: run ``python -m toklane.tokenizer.unicode_classes`` to regenerate it
(``tests/tokenizer/test_compiled_bpe.py`` checks it against the installed
``tokenizers``).

:func:`class_table` expands the runs to one byte per code point (0x110000
bytes) of the flags ``toklane._bpe`` reads.
"""

from __future__ import annotations

import base64
import functools
import sys
import zlib

# Flags, as in src/toklane/_bpe.c (a code point holds at most one of the first six).
L, M, N, P, S, WS, CJK, DECLINE = 1, 2, 4, 8, 16, 32, 64, 128
N_CODEPOINTS = 0x110000
_CLASSES = ((L, r"\p{L}"), (M, r"\p{M}"), (N, r"\p{N}"), (P, r"\p{P}"), (S, r"\p{S}"), (WS, r"\s"))
_CASES = ((P, r"[\p{Lu}\p{Lt}]"), (S, r"\p{Ll}"))

# (start code point, flags) at every change of flags, as little-endian u32 (start << 8 | flags),
# zlib-compressed, base64: generated from tokenizers 0.23.3 (Oniguruma) by main() below.
RUNS = (
    "eNod1wucjmXeB/Druj24nR/nM9OmFYnRKoWYDgi7mtqOQ0zWtq0W04FOr0yhgw5maz/bW23tdHIYuzV0skJDOaRiSPHqNIRqlYZE"
    "jdP73f2Yj+/v/7+u+36e5z7fIYSQU89/jZkTQnpSCNkuPIWnsUcImVz2Uw/goBDieRylHsOxLNS7Vr5T/h9O413WOd06Z/Feluo/"
    "q/8c53G+ZcrkhfI/zPknX/JZi/mqsdeMvS4v0fuXeqn6TXkZ31JXGNvKbTzMn7gqCXFNErKbWcXd/JbfcR+/T0ISaoVYVCtkp3Bq"
    "rRBu4x21QnoXp6uLjc2U79W7j/frPciH+DAf4XN83rxDPMx7MiGZkQlxdiaE3Noh9q4dwpW8unZIC1jIB/QerB2yD7Okdkj+rLeC"
    "b7GCK/k23+EarjVvnWUruZff6/8g/2gddeqEtF6dkG3AhmxcJyRZuX2dEDqwY50Qc/RG1AmZQvUE9SR1EW9Ub+FH6o/N/8zyn8tf"
    "6O3mV+pv+G/1PstXs0bvGE9YNtR1rNQNMVs3JE3ZjLl6I+TfyHO5SL24bshUyOv19vJgXdurbkgPyzXGj+gf0zuuttakVRpiO7Zn"
    "F57CU9ktDaFnGtJcDtLL07taHq03hmP1CnkDi9KQvZ8PqOeY97hcyvXqnfxSnakXkn71QjyXA5nPS3gVx9UL6fh6IXMdi/Ru1Lvb"
    "yTFTnsWHOYd/5mNcwDIu4mK+wte51HLL5OVcoV7NtXyX7+lvkDfKW7lN/Sk/5xd6O+VdvsMedXW9kD0gH2SN+qjvdcyc4+acYKzv"
    "hKgfYm02YBM2ZXN2Y3f25hnswzPZl2ezX/2QDOC5HMgLOJTDOIIjeQkvNf9qXsMxHFvf9jFWpL6JU+qHdKr+rfLdnKk/i49wDh/l"
    "Y1zAMi7iYr7K17jUcsvk5VyhXsO1XM/3uMFYJTexSm+nvMt32ONzq+uH7H71AWM/G6uRQwPbpYHt0sB2YSM2YVM2Zzd2Z2+ewT48"
    "k/0sN0A+lwPVgzmUwziCI3k5rzJnNMdwrN44eXwD26RByBbp3SjfpHebsXvUM+SZnMUH+Qj/zEf5Vz7Bp/g3Ps1nWMrn+SLncyFf"
    "4lLrXMG3uYbvcj03GK/kJvVWbvMd9vg+P8hH9EJD26KhbcHGbMpm7Mbu7NfQb5fP5UD1YA7hMA7nSF7OK825iqN4Dcew0Ng4eXxD"
    "24BFDUN6q3xbw5CdbrzY+N16M+VZxh/mI/wzH+UClvFVvsal5i+Tl3OFejXX8F2u5wZ+xK3mfMYvWKW3U97lc/ewWm+/3g/yQYZG"
    "zvtGfj8bsymbNQpJf57LgXqDOYTDOFx/ZKOQvVidL1+md2WjkLlKHiuP0x+vvs6c2/XuUBfr382Z6ll8nE9yMV/hMi7nClZwrfnr"
    "+R438iN+zK3cxirr38Nq9YFGIT0o/2jZ2DgkvRs7dtnHTbt/45AdpM5TD20c0osbh0w+C4yN1r+bMziTs3gvH+RDfIEvci7nWX4R"
    "F/NVLtdfwQqu5hquNbaOG31GJbfrf8oqhiYhG5uENMPmbMGWTULShu2ahEwO+6jP5Fnsy7N5jrn9OLCJ39AkhIs4jBP1bjQ2i/fq"
    "3c+H9f+XT3C55VfIa7hW/QE3mF/Jj/h/ep9YLmRDclo2xEHZkMnLhnS4nK93BQs4htdyHH/PP3ASb+QU3sNHOMfyJXwyG7LP6JVm"
    "Xau4luv4ATew0mcc4VH1sGYhDm/m/GE+r+RVvJoFHMNCPsDZfIQlXMTFfJ1L+BYruJKruIbruJXb2LS547l5CK3YhqOah+Sa5iEt"
    "bB4yf1RP0y9uHrIl8pNyKQ/xJx43L7RwXLUI2YmtQjqpVYiTW4WcYt6tfqqV65JcKu9tFTL75P16PzO0Dkmz1j63dYid5TNah/RM"
    "dV91nvpS+TK5kBM5iTfq38Rb1MXyq5bZIm/lttYh+4n8qf5n5nzeOmSq+G9Ws8ac0CYkDdp4BmGTNiGTldu18bzD21msP4v3cQHL"
    "9BeynIcY2obQuW1IctiDuRzQNmTzeF7bkF7YNmSGtLW/1JNYxCks5j9YzvXmVPITy32uF9qFpHU7z17tQtqpne+ivlw9loWcxunt"
    "QqZYns0SPmluqbnzOF/9kjnl3MjQ3vW6vfObg9uH8Jv2IR3Z3nnNgvYhe62xG3iLeppcbN4MPsuXzCvnUvUeyx4056g6dAhJlw4h"
    "nN0hpP07OBfk4R08s8n5LNC/i8X6D7KEb3K5foW8zvKV8ofcov8Nv+M+HuSPPMwac48wdAxJRUd2cnx0dlx2DqETcziEF3Ek83kV"
    "r2YBR3E0r+EYjuVdLOZrfL1zyC7nCr7FVfqruUb9ASvVW/gxP9X7TK7id+pq+QB/5CG9Y/KJziHHv9AgJ6RZ6VS5O3upc3NC9kIO"
    "5qX8rf5Y44U5IVOU414v3yTfYvwO49P0pquL1bPVDxufo1fCp/VKuTLHduR+dTgpxOSkkK3FuvTyFeuzBVuyFduyE7vwFP6SXXkq"
    "u7E7e7IX+3EA8ziYwzmSF59kH8szOEs920veQyw5KaTpySHb8OSQduNpJ/vtXSzvBXBEF+8O8t/4b4ZTQnp915CZ2jVk/9I1pKu5"
    "lntYzRndQvaJbs5hfsqjPN7NeX5ayE71IvlXPn6a46GH97IeIe7tEZLvecAL5sEeIf25R8gc43G9cHoIvzw9xK48laezJ3N5PSef"
    "7vlcvvF055W6WH6cpZzH+XyZ5XyDS/gWK7iW67iRldzKbfzCuqqsN/S0LXva9z1DNp+X9nQcysV8kk/xIEOvED7u5bf3cvTkhjTm"
    "hqwX5Vg7N2TqqlN1M7Zgjt5JuSHprs41p7feWXpny/31zlUP9JKdpz6Pj5v7hN5T6qeNl/JZHuFR46G3z+ntXZO9Oae3fdk7ZB7l"
    "X/VKWaG/h9+rqxnOcN07w334jJDtzouYz0tYyGLO5iJWnGEf9OFvONIz2wvW/4Jt94Jt9oJ9xPBiSBvN9R441zrZfa7rKfPmhmTy"
    "3JDezFt4l950+RmWmrtHrtY/YP5Pc32veSG2nmcb8Rd8gA/Ocy9lJTfzQ27hR/yMB+aFJJkfYq35IanDumzAhjx5fsieyh7zQzh9"
    "fsjkqs+S+xnPmx/SW+TbjBer7+Gr6jX6G8ytlLfrVRk7oPcTj/Aoj+mfMCcscI4uCMkvF4S0p5wrD13gPqceqy6Up+kVyzP5iv5K"
    "vQ3qjQt8hrxd73N1lfHd3KNfzRpjJxjKvPeWuY+W+c7yBbyQv9YbWeZcZkFZSEfrF5aF7K28w/idvIvlXMTFfI1v8F9cwQqu5Crr"
    "eJufWM/nrNLfK1fLB+QfjR+W48IQ6i4MsR6bsClbM4ddeSp7MXdhyI7iaE7Q+5NctNA790LPDfxWb99Cv5M1xsI/PH9udY5udVzx"
    "PR5l+Nl9t8ayNbYTwxGff8S7G9uw45GQdGLnI65/7K7fl2fzXA7kIObxfF7AwRxi/mL5bfnDIyEdeMx17pj7z7EQSvgo1+ltZKW6"
    "Wj56zL34uPvCcc8Yxz0zyLnyb3nZ8ZAdx99xvN4f5OvlP3KC+k/H/QZO4VQe048nXCNOhLQ2G7DhCc8vbKfuwM4nQjyJ/dUDOYh5"
    "eufJo+TRvIZjOFb/uhOua1zFdVzPSm7mNm7nZ+ZX8St+ze95lMeNB39elaLXitCVp7I/B3AgB/339I8xn2NY/N/dEVMx1IoxU5d9"
    "Ysz2lfN4O2fzIf05LOHTLOWzrIwxOSYfj9aVGEtiLOWmJCZVSczskI8m/115JqdWDF18yOnyeTyfw/VGyPm1YjJVvlMu5jO1Yvp3"
    "uVR+h+vUleZvUn+sDhlzMjFTyrJMjOXcwm08ylA7hlNrx5jL8bVjOlkuku/k//BBPsTH+Bf+lY/zOT7PxXyFS/kml7OCBxnqxNDX"
    "hsqrG8MVLOT1LOa9vI+LuJhv/meDphZJY0xZj/V5FvvyHA7guRzEK9KYXpnGzFXqwjRmb5Vvl4uN/V2ex3J1FX/gQR7SPyKHejHT"
    "qp7Hwnox7Vwvxhy5nzyIeepiLjFnmbyCFepKblaH+jGJ9W1W1mZdNqxvB8st2JJt2JZnGTub/TmovuNEHlY/pvm82pxCvWnq6XKx"
    "/LR+qVxRP2bX8V3L7db7ythe86rlw/qhgXU3iOk5DWxb+YoGtoNcKN8s3yYXy4+a8wSf1lvAcv3Q0HdoaJyvsII/NIyZGjk0ikmX"
    "Ro6HRjGTy37MaxTjcPk6Y39sFNNJ6snqexvF7CMsMaewcQzTG1snyxrHZGHjmP5TfkmvnIu5iquNHZVDk5jp2CTGrk18FnObxGSI"
    "3iVNYnq5XoFekd496nvVs9XlxlfL78tVPGzcW3eslbWNszEdmnW+ZmPmUnWR/o28mVP0p8rT5RksN/dNveVcoV4lv22skt9Yvpo1"
    "+qGpdTeNSdemMZzZNGbOahrTPL0L9QZzqP5FzFffbOwWearerepieQZf4Upjq+V3+QE3WFel/nb1J/yUn1muSn8Hf9QLzfw1i7F5"
    "s5j0aBbTszlQPYjnGTtfLuZ9vJ8PcDYf4Rw+w79bboFcJpdb7gt5bzO/jzXq0Nwx3DzG2mzEJmzK5uzG7uzNM9iHZ7Jf85j0l8/l"
    "QPVgDuUwjuBIY/m8RH0lr1JfI4+Tx/M6TmQRpxgr5mw+yIf4COewhK/zDXOXyCu5im9zNddwLd/j++Zt4mZ+2DymW/Q/5lb+n/4O"
    "fmkstIjJmS3stxYxHdEiZvJZ0CKG0bzG2BhjY9XjWKwu5zvG1nCt/jrLVHL7f8ZbxuTllr4jl7SM6cqWrqfyp3qfy6FVTHJbxfS8"
    "Vo6XVrZTK5/HAr1CTtQvNmchl+j9S2+pORVcz0ruMhZax9C+dUw6skdr52TrmA5oHbODWjvv9YYytHGMtIlp/zYxDGjjPtAmZqrk"
    "H+QTrNs2xnptXbbYkC3Ykq3Zpq3vKZ/FvjyH/fUHMY/n8fy2Mb3Q2NC2fgML9Es5n2XGN8nbuF29w9yd/FK9S3+3HNq5XraLsQF/"
    "xX7s3861lkPbOYf08uVLOJqzjT0pP81njD8vl/NndWjvd7R3zWof0x3yzvaOZ9bohQ4u6x3cMzrEpJfcl2er8zrYD+ohHXx/TlQX"
    "6d8kl5jzKOdzAd/QDx1ts47uQazPBh1j0lvuy37szwEcyEHGh3Co+qKO1s8CvUJexz/wj5xgzmx5Dkv4KB/T/1/5CcuVskxd1Skm"
    "P3SK6eFOfq8cOnto6ByTWsx0dn6ymbqP3J8DO8f0gs4+Vy7QG2W8nIv0KjrH7EfyAXNO6IecGJ48OWZClxgmd7ENOKWL45AXnuKc"
    "6xXT/b0cN73MzfXXxzHgAec8Du3jHiMX8sgFxi90PAzhtTHpdK3j8lrXhmvV1zuGJtjmE2IYO8F9gRMmuGfoFclv6VVwvbqS+ybE"
    "pNr4j/IhvXCD4/GGmPa9IWYH3GA98oXy4Bvsvxv8ThZwFMcZ/x1v4zSW/Gf+xJhOnBgzRRNjuGOielLMFE+K6eOTYnhqkvVP9gw1"
    "OSYXT3bM8RL1/ZyjfkwuZdVkxzC/1N+lt5vVPKAXimL46T7e7xrjQe/EQ465h2Osftnzzssx/sijPMYTDOUxnLzINXRRDL9iPn/L"
    "y3kFx/N6FvHoYvOX2QTL1JzGYj7AEj65LGb/tiwmTy/zvKcuVYf3Hf/vO/7flz+I4dUNjpmNMfTcaDty6MaYzec7DJW2cSU3ed7d"
    "FLPdNsXk95zAiXo38071DM7iQyzjS8b2Mmx2LdhsX2y2Lzbbj9zCKh7UDx/GcOWH9jlv/9Bv2RLD5VtivIJP8xmW8jk+zxc5jwv4"
    "T77EpXyTy7ic73A163wUY92PPPawEVuyFTuyE/uxPwcxj4M5hEM5nJfwUs79OMb5H8fsSq7iJ/yUR3iULbda79aYPZNn8WLmczKL"
    "+ABncwHL+Dbf2eqZZGvMbFCHbbb/du8E213jOJFTOJUzOWt7TO/b7l6nfoqlfJbl222vL2Lo/EWMp/C0L6ynynWoKiYp27I9f8GT"
    "eQp/ydOqPDtxknoOS9RhRwyn77D/d3hulgfu8AzH4eqRO/wmOV8u2RmTl3bG8PJO11P5252OJXXNzpg9wfClc3SX/i79Xfq71Ltj"
    "sm+34313zOzf7Vqw27WFYY/z5ivPqV/F+DW/5Xf8ntU8wfC157+vY2bt1zGplLd+rfdNTC78JsYR38Tw62+c3yz4JqZjWKi+8duY"
    "/ce3MfNPlnPRtzG8xvhdzPb8LmZ6fef3fWc9+zzL7PMswxyexJPZhaewK09lN/6KfXg2z2E/9ucAns8LOJQXcRiHcwR/zd8wn5fw"
    "t7yMl/NKXsWrWcBRHM1rOIZjWchr+TuO5+/5B97AP/Fm3sLbeDun8S5OZzFn80H+jc/yBb7IMi7ksn0xW80DDNWeF6pjNpd/YSlf"
    "5iJWcCUruYmHqt0T9sdso/2e17mHtQ7EbPaAbcI8DmM+L2Uhr2P4wX3/UMx+eiiG71jNYwyHPQMfjtk7uZ1V/JbV3M/wk1eQn6yf"
    "FzGfBSzk/SzhSyznMlZwFcPPMVxWY16N451FnMZizuYcruUGfsYv+G9W82eGI95hj8TsX444nuWaI46b4DSb68V7XhL6vZHEvDeS"
    "0GlJEnOWJOG5DUks35CEHXuTWL03sR/N+8l4DUOtMKJ5Lc+6tUL5ybWSEBvb5I3/H7sIHRU="
)


# Letters' case, for the o200k family's case-aware pattern: P on Lu and Lt, S on Ll (a letter holds neither
# P nor S in RUNS), from the same engine as RUNS, by main() below.
CASED_RUNS = (
    "eNoV13WcFXXbwOEZ2YWV8iAhIC3dKhiAApLSoHR3wyKKKIh0dyNId4kinVLSEks3iNI8SuqCvNf7D9f3vs/sh2X2/M4sQRAEMaX9"
    "0TAIIs3Zi2u41n47T/G03SX9hE/NQRhEwjCIeYkJGMVoJmQixvBlJmYSJmUyJucrjDAFX2VKpmJqpuFrTMt0TM/XmYEZmYmZmYVZ"
    "mY1vMDtzMCdzMTfzMC/zMT8LsCALsTDf5Ft8m0VYlO/wXb7PYizOEvyAH7IkS7E0P2IZlmU5lmcFVmQlVmYVVmU1VmcN1mQtfsJP"
    "WZt1WJf1WJ8N2JCN2JhN2JTN2Jwt2JKt2Jpt2Jbt2J4d2JGd2Jld2JWx7MbP2J2f8wv24Jfsya/Zi735DfuwHwdwIAdxMIdyGEdy"
    "NMdzAidxMqdxBmdyFudwLudxPhdwIRdzCZdyOVdwJVfxR/7MNVzLddwQBsEmvVlv0dv1Lr2Hv3If9/MgD/Ewf+MRHuUxHmccT/Ak"
    "T/E0z/Asz/E8L/ISL/MKr/Iaf+d1/sE/eYM3eYu3eYd3eY/3+Rcf8CEf8TH/4b+M5zM+5398weAl5+sl54sJGMVoJmQixvBlJmYS"
    "JmUyJucrjDAFX2VKpmJqpuFrTMt0TM/XmYEZmYmZmYVZmY1vMDtzMCdzMTfzMC/zMT8LsCALsTDf5Ft8m8VYgh+wJEvzI5ZhBVbk"
    "x6zEyqzCqqzG6i8FwURO4iq72ATewwm8h9k9QRB8rnvoL3VP9mIfu2/Zl4M5hEM5giM5iqNdO5bjzHM5z7ycv/EIj/EET/MMz/Ic"
    "z/MCL/ISL/MKr/Iaf+d1/sE/eYM3eYu3eYd3eY/3+ZCPfA+P9RP9lP8wns9ZOMq5j3Lu2YIt2Yqt2YZt2Y7t2YEd2Ymd2YVdGctu"
    "/Izd+Tm/YA9+yZ78il+zF3vzG/bht+zLflFB0F8P1yM4kqM4mmM4luM4nhM4kZM4mVM4ldP4HadzBr/nTM7ibM7hXM7jfC7gQi7i"
    "Yi7hUi7jcq7gSv7AVfyRP3E1f+YaruU6rucGbuQmbuYWbuU2bucO7uQu7uYe/sq93Mf9PMCDPMTDPMKjPMbjjOMJnuQpnuYZnuU5"
    "nucFXuQlXuYVXuU1/s7r/IN/8gZv8hZv8w7v8h7v83/8i3/zAR/yER/zCZ/yH/7LeD7jc/7HFwyifdZE+6xhAkYxmgmZiDF8mYmZ"
    "hEmZjMn5CiNMwVeZkqmYmmn4GtMyHdPzdWZgRmZiZmZhVmbjG8zOHMzJXMzNPMzLfMzPAizIQtFBUFi/ybrmZhxmnh0Jgj0RPzvu"
    "5SEejjjXjOdzBilcl9K5S+nM8T/2zeCZliGIDM/gs0KP5SZu4Xb7IGMQ5M/ojLEnv+L0jO5hJvcwk3vIBIxiNBMyEWP4MhMzCZMy"
    "GZPzFUaYgq8yJVMxNdPwNaZlOqbn68zAjMzEzMzCrMzGN5idOZiTuZibeZiX+ZifBViQhViYb/Itvs0iLMp3+C7f4/ssxuIswQ/4"
    "IUuyFEvzI5ZhWZZjeVZgRX7MSqzMKqzKaqzOGqzJWvyEn7I267Au67E+G7AhG7Exm7Apm7E5W7AlW7E127At27E9O7AjO7Ezu7Ar"
    "Y9mNn7E7P+cX7MEv2ZNf8Wv2Ym9+wz78ln3Zj/05gAM5iIM5hEM5jMM5giM5iqM5hmM5juM5gRM5iTM5i7M5h3M5j/O5gAu5iIu5"
    "hEu5jMu5giv5A1fxR/7E1fyZa7iW67ieG7iRm7iZW7iV27idv3AHd3IXd3MPf+Ve7uN+HuBBHuJh/sYjPMpjPM44nuBJnuJpnuFZ"
    "nuN5XuBFXuJlXuFVXuPvvM4/+Cdv8CZv8Tbv8C7v8T7/x7/4Nx/wIR/xMZ/wKf/hv4znMz7nf3zx/+c3cxCJZA6CNJmdRWYyZ9G5"
    "WZjvsZR9eV2R1cw1WM9cnw3YkI3YmE3Y1DXN2I6xdn3Y1zyUYzmVs7mYq7y+hmvN6/UWvZXbuIO7ucdre/UhfYRxPGl3Wp/Xl/UN"
    "fVf/zUd8bPdUP+dLWYMgQdYgJhFjsgaRxDoJkzPClPapdGqmYTpmYnbmYE7mYm7mYV4W9HWFdGEWMRfl+yzGEvYf6lIsZy6vK7Ea"
    "q9sN0AP1IB3kd5/zO+dszhZszbZsx/bswI7sxM7sxs/YnV+wR/4g6K376H7szwEcyEEczCEcymEczhEcyVEczTEcy3EczwmcyEmc"
    "zCmcymn8jtM5g99zJmdxNudwLudxPhdwIRdxMZdwKZdxOVdwJX/gKv7In7iaP3MN13Id13MDN3ITN3MLt3Ibt/MX7uBO7uJu7uGv"
    "3Mt93M8DPMhDPMzfeIRHeYzHGccTPMlTPM0zPMtzPM8LvMhLvMwrvMprfibX9W19h3d5z+6+/ls/0A8ZFAiCnAU8y5ibBViwgOfO"
    "Qs+dhZ47LMOyLMfyrMCK/JiVWJlVWJXVWJ01WJO1+Ak/ZW3WYV3WY302YEM2YmM2YVM2Y3O2YEu2Ymu2YVu2Y3t2YEd2YueFQdBF"
    "99X92J8DOJCDOJhDOJTDOJwjOJKjOJpjOJbjOJ4TOJGTOJlTOJXT+B2n+ztn6GyL/H6wyJllDuZkLuZmHuZlPuZnARZkIb7Ft1mE"
    "RfkO3+V7fJ/FWJwl+AE/ZEmWYml+xDIsy3IszwqsyI9ZiZVZhVVZjdVZgzVZi5/wU9ZmHdZlPdZnAzZkIzZmEzZlMzZnC7ZkK7Zm"
    "G7ZlO7ZnB3ZkJ3ZmF3ZdFASx7Gb+il+zF3vzG37LvuzH/hzAgRzEwRzi64fqEXokR3G03Rg9Vo/jeE7gZE7hVE7jd5zOGfyeMzmL"
    "szmHczmP87mAC7mIi7mES/kDV3EN13Id13MDN3ITN3MLt3Ibt/MX7uBO7uJe7uN+HuAh/4bD+og+qo/xOON4wv4kT/E0z/Asz/G8"
    "ay7wkfmxfsJ/Gc/Cy4Kg4TLPQ7ZnLLcziA+CRPGePUwb77H0IgiKv/CeYsMXngtRYSR3VBjUiAr9/y8M4syn+cwcGx0GvaLDmN4c"
    "wZGcwImcHB1GpnAu5/EnruZGbuIW1/VNGgark4aR7XyQNIypkSwM2iQLI7EcnCyMmZ3Wa2nD4HLaMKZUlzDSrEsY9O0SxgRxYSR9"
    "XBhThNXiwqA265jbsT9n2H3PmZzNuZzHBVzEJVzBla5fqzdyEzdzC3dxt9eP8BajToRBwhNhTCImYTKmZhpmPBFGMun3dDEWZ0mW"
    "YjmWZwVWYk3X1tKdOJizuZFxvMeYk2Ek28kwpgTrMJbDT4bBQr2Yv5h38BzP213V8foZU58KI2lOhTEZToVBUf0Oq7OGXR3dVcdy"
    "GIfbjdVL9FLu5C67/TxgPsjgUhgkvhRGkjAzczDfJff+pu/xZhiUvRn+HxHBWJg="
)


def reference_flags(classes: tuple[tuple[int, str], ...] = _CLASSES) -> bytearray:
    """One byte per code point: the flags of HF ``tokenizers``' regex engine (``classes``: flag and
    pattern; :data:`RUNS`' by default, ``_CASES`` for :data:`CASED_RUNS`)."""
    from tokenizers import Regex, pre_tokenizers

    codepoints = [c for c in range(N_CODEPOINTS) if not 0xD800 <= c < 0xE000]
    text = "".join(map(chr, codepoints))
    flags = bytearray(N_CODEPOINTS)
    for flag, pattern in classes:
        # "removed": what is left are the runs the class does not match (offsets in characters)
        unmatched = bytearray(len(codepoints))
        for _, (a, b) in pre_tokenizers.Split(Regex(pattern), "removed").pre_tokenize_str(text):
            unmatched[a:b] = b"\x01" * (b - a)
        for k, c in enumerate(codepoints):
            if not unmatched[k]:
                flags[c] |= flag
    return flags


def encode_runs(flags: bytes) -> str:
    """``flags`` (one byte per code point) as :data:`RUNS`."""
    words = bytearray()
    previous = -1
    for c, f in enumerate(flags):
        if f != previous:
            words += ((c << 8) | f).to_bytes(4, "little")
            previous = f
    return base64.b64encode(zlib.compress(bytes(words), 9)).decode()


def _expand(runs: str) -> bytearray:
    words = zlib.decompress(base64.b64decode(runs))
    table = bytearray(N_CODEPOINTS)
    starts = [int.from_bytes(words[k : k + 4], "little") for k in range(0, len(words), 4)]
    for k, word in enumerate(starts):
        start, f = word >> 8, word & 0xFF
        end = starts[k + 1] >> 8 if k + 1 < len(starts) else N_CODEPOINTS
        if f:
            table[start:end] = bytes([f]) * (end - start)
    return table


@functools.cache
def _base_table() -> bytes:
    table = _expand(RUNS)
    table[0xD800:0xE000] = bytes([DECLINE]) * 0x800  # lone surrogates: the regex engine decides
    return bytes(table)


@functools.cache
def class_table(cjk: tuple[tuple[int, int], ...] = (), cased: bool = False) -> bytes:
    """One byte of flags per code point, with ``CJK`` set on the inclusive ranges ``cjk`` and, where
    ``cased``, letters' case from :data:`CASED_RUNS` (``P`` on Lu and Lt, ``S`` on Ll)."""
    table = bytearray(_base_table())
    if cased:
        for c, f in enumerate(_expand(CASED_RUNS)):
            if f:
                table[c] |= f
    for first, last in cjk:
        for c in range(first, last + 1):
            table[c] |= CJK
    return bytes(table)


def main() -> None:
    """Print :data:`RUNS` and :data:`CASED_RUNS` as read from the installed ``tokenizers`` (slow: every code point)."""
    sys.stdout.write(f"RUNS {encode_runs(reference_flags())}\nCASED_RUNS {encode_runs(reference_flags(_CASES))}\n")


if __name__ == "__main__":
    main()
