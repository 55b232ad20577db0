"""Handoffs, lessons and STATE.md as the seed's own users write them: in Korean, in Korean
and English mixed, saved on Windows (UTF-8 with a byte-order mark, CRLF line ends).

Each builds a small project in ``tmp_path`` and checks the exact lines of the block
(``build_summary`` and ``render_markdown`` with a fixed date), as ``test_summary_prose``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from test_summary_phases import HANDOFF, LESSONS, block, labelled, summary

from lets_hooks.summary import prose
from lets_hooks.summary.render import render_json, render_markdown, size_of
from lets_hooks.summary.sources.text import is_placeholder

APPROVALS = "Approved earlier, confirm again this session (approvals do not carry over)"
STATE = ".claude/STATE.md"

KOREAN = """---
date: 2026-11-27
---
# 세션 핸드오프

## 우선순위 1 — 인코딩 감지 버그 수정
- `src\\converter\\encoding.py`의 BOM 처리 확인

## 우선순위 2 — 배치 변환 진행률 표시 추가

## 미결정 사항
- 진행률을 퍼센트로 보여줄지 건수로 보여줄지?
- 없음

## 블로커
- SQS FIFO 할당량 증가 요청 대기 중
- 없음

## 실패한 접근
- chardet로 전체 파일 감지 (너무 느림)

## 주의사항
- CRLF 파일은 마지막 줄이 잘릴 수 있음

## 메모
- 스테이징 배포 권한 허용됨
- 프로덕션 배포는 승인 필요
- 재시도 플래그는 기본값으로 활성화됨

## 완료
- 로그 정리
"""


def utf8(text: str) -> bytes:
    return text.encode("utf-8")


def windows(text: str) -> bytes:
    """``text`` as a Windows editor saves it: UTF-8 with a byte-order mark, CRLF."""
    return b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8")


@pytest.mark.parametrize("encode", [utf8, windows], ids=["utf-8", "bom-crlf"])
def test_a_korean_handoff_fills_every_line(tmp_path: Path, encode: Callable[[str], bytes]) -> None:
    body = encode(KOREAN)
    lines = block(tmp_path, {HANDOFF: body})
    assert [line for line in lines if line.startswith("**Priority")] == [
        "**Priority 1:** 인코딩 감지 버그 수정", "**Priority 2:** 배치 변환 진행률 표시 추가"]
    assert labelled(lines, "Outstanding decisions") == [
        "**Outstanding decisions:**", "  - 진행률을 퍼센트로 보여줄지 건수로 보여줄지?"]
    assert labelled(lines, "Active blockers") == [
        "**Active blockers:**", "  - SQS FIFO 할당량 증가 요청 대기 중"]
    assert labelled(lines, "Do not repeat") == [
        "**Do not repeat:**", "  - chardet로 전체 파일 감지 (너무 느림)"]
    assert labelled(lines, "Risks and gotchas") == [
        "**Risks and gotchas:**", "  - CRLF 파일은 마지막 줄이 잘릴 수 있음"]
    assert labelled(lines, APPROVALS) == [f"**{APPROVALS}:**", "  - 스테이징 배포 권한 허용됨"]
    assert labelled(lines, "Memory alerts") == [
        "**Memory alerts:**",
        "  - stale reference: `src\\converter\\encoding.py` (`src/converter/encoding.py`) is"
        " named in the handoff but does not exist"]
    assert not any(line.startswith("**Warnings") for line in lines)


def test_a_mixed_handoff_reads_both_and_says_what_it_cannot_place(tmp_path: Path) -> None:
    body = ("## Next steps (다음 단계)\n- 배포 스크립트 정리\n- Write the migration guide\n\n"
            "## 질문 (Questions for the user)\n- Keep the v1 endpoint?\n\n"
            "## 알려진 문제\n- 업로드가 30초 후 끊김\n\n"
            "## Übersicht\n- etwas Wichtiges\n\n"
            "## 배경\n- 참고만 할 것\n")
    result = summary(tmp_path, {HANDOFF: body})
    lines = render_markdown(result).splitlines()
    assert [line for line in lines if line.startswith("**Priority")] == [
        "**Priority 1:** 배포 스크립트 정리", "**Priority 2:** Write the migration guide"]
    assert labelled(lines, "Outstanding decisions")[1:] == ["  - Keep the v1 endpoint?"]
    assert labelled(lines, "Active blockers")[1:] == ["  - 업로드가 30초 후 끊김"]
    assert result.warnings == (
        f'{HANDOFF}: a section whose heading the reader cannot place: "Übersicht"; its items'
        " feed no line (read them in the handoff)",)


def test_korean_sub_headings_under_next_steps_are_the_steps(tmp_path: Path) -> None:
    body = ("## 다음 단계\n### 1단계: 훅 연결\n- 세부 사항\n### 단계 2: 시간 측정\n\n"
            "### 문서\n- README 작성\n")
    assert [line for line in block(tmp_path, {HANDOFF: body}) if line.startswith("**Pri")] == [
        "**Priority 1:** 훅 연결", "**Priority 2:** 시간 측정 (… and 1 more in the handoff)"]


def test_an_unplaced_english_heading_is_said_too_and_an_empty_one_is_not(
        tmp_path: Path) -> None:
    body = ("# Handoff for Tuesday\nSome words under the title.\n\n"
            "## Next steps\n- x\n\n## Sprint 48\n- the parser rewrite\n\n## Miscellany\n\n"
            "## Zeug\n- None\n")
    assert summary(tmp_path, {HANDOFF: body}).warnings == (
        f'{HANDOFF}: a section whose heading the reader cannot place: "Sprint 48"; its items'
        " feed no line (read them in the handoff)",)


@pytest.mark.parametrize(("heading", "kind"), [
    ("우선순위 2 — 배치 변환 진행률 표시 추가", prose.PRIORITIES),
    ("다음 단계", prose.PRIORITIES),
    ("할 일", prose.PRIORITIES),
    ("미완료 작업", prose.PRIORITIES),
    ("내일 할 것", prose.PRIORITIES),
    ("완료된 작업", prose.DONE),
    ("결정 사항", prose.DONE),
    ("해결된 문제", prose.DONE),
    ("미결정 사항", prose.DECISIONS),
    ("사용자에게 할 질문", prose.DECISIONS),
    ("블로커", prose.BLOCKERS),
    ("알려진 이슈", prose.BLOCKERS),
    ("실패한 접근", prose.AVOID),
    ("맥락 메모", prose.AVOID),
    ("주의사항", prose.RISKS),
    ("리스크", prose.RISKS),
    ("CRLF 버그에 대한 메모", prose.NOTES),
    ("배경", prose.NOTES),
])
def test_korean_heading_roles(heading: str, kind: str) -> None:
    role = prose.role_of(heading)
    assert role is not None and role.kind == kind, heading


@pytest.mark.parametrize(("heading", "number", "task"), [
    ("우선순위 2 — 배치 변환 진행률 표시 추가", 2, "배치 변환 진행률 표시 추가"),
    ("우선 순위 1: 인코딩 수정", 1, "인코딩 수정"),
    ("1순위: 인코딩 수정", 1, "인코딩 수정"),
    ("우선순위 #3", 3, None),
])
def test_numbered_korean_priorities(heading: str, number: int, task: str | None) -> None:
    assert prose.numbered_priority(heading) == prose.Role(prose.PRIORITIES, number, task)


@pytest.mark.parametrize("text", ["없음", "없음.", "**없음**", "_없음_", "(없음)", "해당 없음",
                                  "아직 없음", "현재 없음", "블로커 없음", "특이사항 없습니다",
                                  "질문 없음", "없음 (모두 해결)", "무"])
def test_korean_placeholders(text: str) -> None:
    assert is_placeholder(text), text


@pytest.mark.parametrize("text", ["없음 처리가 깨짐", "권한 없음 오류가 남", "무시된 테스트 3개",
                                  "로그 없음 상태에서 크래시"])
def test_korean_items_that_say_something(text: str) -> None:
    assert not is_placeholder(text), text


@pytest.mark.parametrize("sentence", [
    "스테이징 배포 권한 허용됨", "사용자가 force push를 승인함.", "main 병합 허가 받음",
    "캐시 플래그 활성화함", "태그 삭제해도 된다고 함", "배포 권한 부여됨", "팀장 결재 완료",
    "PM 컨펌 받음", "The user approved the rename; 배포 승인 받음",
])
def test_korean_approvals_are_caught(tmp_path: Path, sentence: str) -> None:
    body = f"## 다음 단계\n- x\n\n## 메모\n- {sentence}\n"
    found = labelled(block(tmp_path, {HANDOFF: body}), APPROVALS)
    assert found[:1] == [f"**{APPROVALS}:**"] and len(found) >= 2, sentence


@pytest.mark.parametrize("sentence", [
    "프로덕션 배포는 승인 필요", "승인 대기 중", "배포가 승인되지 않음", "미승인 상태",
    "재시도 플래그는 기본값으로 활성화됨", "배포해도 될까요?", "main 푸시는 허용 안 됨",
    "사용자에게 승인 요청함", "각 행에 ID 번호 부여함",
])
def test_what_is_not_a_korean_approval(tmp_path: Path, sentence: str) -> None:
    body = f"## 다음 단계\n- x\n\n## 메모\n- {sentence}\n"
    assert labelled(block(tmp_path, {HANDOFF: body}), APPROVALS) == [], sentence


def test_what_a_korean_handoff_says_of_the_names_it_mentions() -> None:
    text = ("- `api/old.py` 삭제함.\n- `a.py`를 `b.py`로 이름 변경\n"
            "- `b2.py` (`a2.py`에서 이동)\n- `c.py` 삭제 예정\n- `d.py` 추가함\n"
            "- `e.py`는 삭제하지 않음\n- `f.py`는 더 이상 존재하지 않음\n"
            "- `src\\g.py` 사용 중단\n")
    names = ["api/old.py", "a.py", "b.py", "a2.py", "b2.py", "c.py", "d.py", "e.py", "f.py",
             "src/g.py"]
    removed, added = prose.reference_claims(text, names)
    assert removed == {"api/old.py", "a.py", "a2.py", "f.py", "src/g.py"}
    assert added == {"b.py", "b2.py", "d.py"}


# --------------------------------------------------------------------------- STATE.md, lessons


@pytest.mark.parametrize("encode", [utf8, windows], ids=["utf-8", "bom-crlf"])
def test_a_korean_state_file_of_placeholders_says_none(
        tmp_path: Path, encode: Callable[[str], bytes]) -> None:
    text = "# 상태\n\n## 미결정 사항\n- 없음\n\n## 블로커\n- 해당 없음\n"
    body = encode(text)
    assert "**Global:** none" in block(tmp_path, home={STATE: body})


def test_a_korean_state_file_with_a_bom_and_crlf_gives_its_items(tmp_path: Path) -> None:
    text = ("---\nupdated: 2026-11-27\n---\n# 상태\n\n## 미결정 사항\n- 없음\n"
            "- 결제 모듈을 분리할지\n\n## 블로커\n- VPN 접속 불가\n\n## Open decisions\n- None\n")
    lines = block(tmp_path, home={STATE: windows(text)})
    assert labelled(lines, "Global") == ["**Global:**", "  - decision: 결제 모듈을 분리할지",
                                         "  - blocker: VPN 접속 불가"]


def test_korean_lessons_with_a_bom_and_crlf(tmp_path: Path) -> None:
    text = ("# 교훈\n\n## Graduated Gates\n| id | trigger | check |\n|---|---|---|\n"
            "| G1 | 푸시 전 | 테스트를 돌렸는가? |\n\n"
            "### [2026-11-20] CRLF 파일은 마지막 줄을 잃는다\n"
            "> conf: 0.9 · seen: 2026-11-20 · obs: 3 · model: opus\n줄 끝을 먼저 정규화할 것.\n\n"
            "### [2026-11-01] 한글 파일 이름은 NFC로 비교\n"
            "> conf: 0.6 · seen: 2026-11-01 · obs: 1\n"
            "macOS는 NFD로 준다.\n\n### 날짜 없는 교훈\n본문\n")
    result = summary(tmp_path, {LESSONS: windows(text)})
    lines = render_markdown(result).splitlines()
    assert "  G1 푸시 전 → 테스트를 돌렸는가?" in lines
    assert labelled(lines, "Lesson flags") == [
        "**Lesson flags:**",
        "  - [active] CRLF 파일은 마지막 줄을 잃는다 — 줄 끝을 먼저 정규화할 것. (conf 0.9, obs 3,"
        " seen 2026-11-20)",
        "  - 한글 파일 이름은 NFC로 비교 (conf 0.6)"]
    assert result.model_tags is not None and result.model_tags.lessons_tagged == 1
    assert result.warnings == (f"{LESSONS}: line 16 has a ### lesson header without a"
                               " [YYYY-MM-DD] date; not read as a lesson",)


# --------------------------------------------------------------------------- output


def test_korean_output_is_the_same_bytes_every_time_and_within_its_budget(
        tmp_path: Path) -> None:
    big = (KOREAN + "\n## 블로커 더\n"
           + "".join(f"- 서비스 {n}의 배포가 리뷰를 기다림, `services/s{n}/app.py`\n"
                     for n in range(400)))
    first = render_markdown(summary(tmp_path, {HANDOFF: big}))
    assert all(render_markdown(summary(tmp_path, {HANDOFF: big})) == first for _ in range(3))
    assert size_of(first) <= 8000
    small = render_markdown(summary(tmp_path, {HANDOFF: big}), budget=2000)
    assert size_of(small) <= 2000
    assert "**Priority 1:** 인코딩 감지 버그 수정" in small.splitlines()
    data = json.loads(render_json(summary(tmp_path, {HANDOFF: big})))
    assert len(data["handoff"]["active_blockers"]["items"]) == 10
    assert data["handoff"]["active_blockers"]["more"] == 391
