"""Reference texts from M2 when one annotator inserts twice at the same position.

The GLEU README's published figures (shotakoyama/gleu) are reproduced only
when such insertions keep the order in which the M2 file lists them; in the
CoNLL-2014 test set this concerns 9 reference sentences.
"""

from gecmetrics.m2_format import read_m2


def test_insertions_at_one_position_keep_file_order(tmp_path):
    path = tmp_path / "x.m2"
    path.write_text(
        "S a b c\n"
        "A 1 1|||M|||x|||REQUIRED|||-NONE-|||0\n"
        "A 1 1|||M|||y|||REQUIRED|||-NONE-|||0\n"
        "A 1 2|||R|||B|||REQUIRED|||-NONE-|||0\n"
        "A 3 3|||M|||z|||REQUIRED|||-NONE-|||0\n"
        "\n",
        encoding="utf-8",
    )
    (sentence,) = read_m2(path).sentences
    # By hand: insert "x" then "y" before "b", replace "b" by "B", append "z".
    assert sentence.correct(0) == "a x y B c z"
