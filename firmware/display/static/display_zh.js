"use strict";
// display.js's Chinese (issue 16 "Every screen"), kept apart so that the page's code reads in
// one sitting: the labels, banners, buttons and notices, then the event log's lines.

words({  // i18n.js: this page's Chinese (issue 16 "Every screen")
  "East": "東", "South": "南", "West": "西", "North": "北", "dealer": "莊家", "turn": "本手",
  "hand": "本盤", "penalties of this hand, settled at its end": "本盤罰分，盤終結算",
  "rolls the dice": "擲骰", "second roll": "第二次擲骰", "to draw": "待摸牌",
  "to discard": "待打牌", "calls open": "可吃碰槓和", "kong may be robbed": "可搶槓",
  "hand won": "已和牌", "drawn hand 荒牌": "荒牌", "game over 局結": "局結", "between hands": "盤間",
  "{wind} round · hand {n}": "{wind}風圈 · 第 {n} 盤", "PAUSED": "暫停中",
  " tiles left": " 張牌剩餘", "dead wall {n}": "嶺上 {n}", "dice {dice}": "骰子 {dice}",
  " · break {wind} {stacks}": " · 開門 {wind} {stacks}",
  "hand {n}: {result} · {changes}": "第 {n} 盤：{result} · {changes}",
  "NOT REFEREEING": "停止執裁",
  "{n} tile(s) to put back": "{n} 張牌須放回",
  "put these tiles back, or correct the tracking": "將這些牌放回，或更正追蹤",
  "every tile lies where the hand has it: the referee resumes the clocks":
    "每張牌都在本盤記錄的位置：由裁判恢復計時",
  "open": "待處理", "acknowledged": "已確認", "applied": "已執行", "waived": "已免除",
  "revoked": "已撤銷", "awaits your ruling (centre)": "等待你的裁定（桌面中央）",
  "Acknowledge": "確認", "details": "詳情",
  "Sheet": "計分表", "History": "歷史", "Players": "選手", "Tools": "工具",  // tabs.js
  "connection to the table lost: retrying": "與牌桌的連線中斷：重試中",
  "idle": "閒置", "dropping": "落牌", "shuffling": "洗牌中", "stacking": "疊牌中",
  "ready": "備妥", "raising": "升牌中", "fault": "故障",  // the shuffler's states
  "no win": "不得和牌", "dead hand": "死手", "no calls": "不準鳴牌", "mechanical": "摸打",
  "removed": "離場", "forfeit": "棄權", "disqualified": "取消資格",  // a penalty's effect
  "{n} points": "{n} 分", "{n} points to each": "每家 {n} 分",
  "{n} penalty tiles": "{n} 張罰牌", "proposed": "建議", "penalty": "罰則",
  "time left ": "剩餘時間 ", "break · game {n} ": "休息 · 第 {n} 局 ", "game {n} ": "第 {n} 局 ",
  "{who} is on the way": "{who} 正在趕來", "game {n} of ": "第 {n} 局 · ", "cleared": "已排除",
  "seen, not yet cleared": "已看到，尚未排除", "in play: set {set} · ready: {ready}":
    "使用中：第 {set} 副 · 備妥：{ready}", "yes": "是", "no": "否",
  "Pause": "暫停", "Resume": "繼續", "Accept the table as it lies": "按桌面現狀接受",
  "Retry: the machine is put right": "重試：洗牌機已修好",
  "Throw East's second roll": "代擲東家第二次骰", "Wall head touched": "牌牆頭被觸碰",
  "Who touched the wall head? (E, S, W or N)": "誰觸碰了牌牆頭？（東、南、西、北，或 E、S、W、N）",
  "Draw seats": "執位", "Change seats": "換位",
  "Seats for the next game: blank for the table's, or P1-P4 E S W N":
    "下一局的座位：留空用本桌的，或依 E S W N 填 P1-P4",
  "Scores asked": "問分", "Who asks the scores? (E, S, W or N)": "誰問分？（東、南、西、北，或 E、S、W、N）",
  "New session": "新一節",
  "End this session and begin the next? The table restarts on it.":
    "結束本節並開始下一節？牌桌將重新啟動。",
  "Re-deal": "重新配牌", "Re-deal this hand: why? (the journal keeps the reason)":
    "重新配牌：原因？（紀錄會保存原因）",
  "Remove excess tiles": "取出多餘的牌", "Who is long at the deal? (E, S, W or N)":
    "誰配牌多牌？（東、南、西、北，或 E、S、W、N）",
  "Void hand": "本盤作廢", "Void this hand: why? (the journal keeps the reason)":
    "本盤作廢：原因？（紀錄會保存原因）", "Log out": "登出",
  "The hand will not count and is dealt again. Void it? Reason: {reason}":
    "本盤不計並重新配牌。確定作廢？原因：{reason}",
  "Accept the table as it lies: why? (the journal keeps the reason)":
    "按桌面現狀接受：原因？（紀錄會保存原因）",
  "The hand goes on from the tiles as they lie. Accept the table? Reason: {reason}":
    "牌局按桌面現狀繼續。確定接受？原因：{reason}",
  "Report an offence": "報告違規", "seat ": "座位 ", "offence ": "違規 ", "seconds ": "秒數 ",
  "tiles ": "牌 ", "Report": "報告",
  "the rule book's offences are unavailable": "無法取得規則書的違規項目",
  "{seat} holds no {tile} to name": "{seat} 手中沒有 {tile}",
  "{action}: done": "{action}：完成", "{action} refused: {error}": "{action} 被拒絕：{error}",
  "pause": "暫停", "resume": "繼續", "ack": "確認", "rule": "裁定", "revoke": "撤銷",
  "accept table": "接受桌面", "roll": "擲骰", "wall touched": "牌牆頭被觸碰",
  "draw seats": "執位", "change seats": "換位", "ask scores": "問分", "new session": "新一節",
  "redeal": "重新配牌", "remove excess": "取出多餘的牌", "void hand": "本盤作廢",
  "correct": "更正",
  "Too many wrong PINs: wait and try again.": "PIN 錯誤次數過多：請稍候再試。",
  "Wrong PIN.": "PIN 錯誤。", "Referee": "裁判", "PIN": "PIN", "Log in": "登入",
  "Name (an enrolled referee)": "姓名（已登記的裁判）",
  "Type your name too: referees are enrolled here.": "請同時輸入姓名：本桌已登記裁判。",
  "The table's public view": "本桌公開畫面", "Alerts": "警示", "Penalties": "罰分",
  "Faults": "故障", "Shuffler": "洗牌機", "Events": "事件", "Score sheet:": "計分表：",
});

words({  // the report form, a cut's tiles, the stage's table, the sheet's actions
  " (seconds)": "（秒數）", " (tiles)": "（牌）",
  "{face}: the hand has it in {expected}; the readers see it in {seen}":
    "{face}：本盤記錄在 {expected}；讀牌器見於 {seen}",
  "hand {n} resumed after an interruption at {at} ({took})":
    "第 {n} 盤於 {at} 斷電中斷後恢復（{took}）",
  "{m} min {s} s": "{m} 分 {s} 秒", "{s} s": "{s} 秒", ", ": "、",
  "{face}: the hand has it in {expected}; the readers do not see it":
    "{face}：本盤記錄在 {expected}；讀牌器未見此牌",
  ": over · qualified: {who}": "：已結束 · 出線：{who}",
  " (tied: as the competition rules)": "（同分：依競賽規程）", "place": "名次",
  "局分, game {n}": "第 {n} 局局分", "總局分: the stage's total": "總局分",
  "標準分: the standard score": "標準分", "second on record: ": "候補：",
  "confirm score": "確認分數", "sign sheet": "簽署計分表", "players": "選手",
  "ask signatures": "請選手簽名", "player signs": "選手簽名", "dealer kept": "錯莊續莊",
  "report": "報告", "draw": "流局",
});

words({  // the event log's lines
  "{who} discards {tile}": "{who} 打出 {tile}", "{who} draws {tile}": "{who} 摸牌 {tile}",
  "{who} draws a replacement {tile}": "{who} 補牌 {tile}",
  "{who} {claim} {tile} from {from}": "{who} {claim} {from} 的 {tile}",
  "chow": "吃", "pung": "碰", "kong": "槓", "win": "和",
  "{who} {kind} kong{of}": "{who} {kind}槓{of}", " of {tile}": " {tile}",
  "concealed": "暗", "exposed": "明", "added": "加",
  "{who} flower {tile}": "{who} 補花 {tile}", "{who} wins by self-draw": "{who} 自摸和牌",
  "{who} wins on {from}'s discard": "{who} 和 {from} 打出的牌",
  "the wall is exhausted: drawn hand": "牌牆摸完：流局",
  "two players without chips: the game ends here": "兩家無分：局結",
  "dice {dice}: {who}'s wall broken, {stacks} stacks": "骰子 {dice}：{who} 牌牆開門，{stacks} 墩",
  "tiles dealt": "配牌完成", "alert: {text}": "警示：{text}", "alert": "警示",
  "{who} penalty applied: {offence}": "{who} 罰則執行：{offence}",
  "ruling on alert {alert}: waived": "警示 {alert} 的裁定：免除",
  "{who} penalty revoked (alert {alert}): {reason}": "{who} 罰則撤銷（警示 {alert}）：{reason}",
  "{who}'s win scored again: {payer} (ruling on alert {alert})":
    "{who} 的和牌重新計分：{payer}（警示 {alert} 的裁定）",
  "nobody pays alone": "無人單獨支付", "{seat} pays": "{seat} 支付",
  "fault: {device} {kind}": "故障：{device} {kind}", "cleared: {device} {kind}": "已排除：{device} {kind}",
  "clocks paused": "計時暫停", "clocks resumed": "計時恢復", "wall revealed: {digest}": "牌牆公開：{digest}",
  "seats drawn ({source}): {seats}; East deals first on the E side":
    "執位（{source}）：{seats}；東家先在 E 側坐莊",
  "{side} side's player → {wind}": "{side} 側選手 → {wind}",
  "seats for game {game} ({source}): {seats}": "第 {game} 局座位（{source}）：{seats}",
  "{who} asks the scores (問分)": "{who} 問分",
  "scores told only when asked (問分)": "得分僅於問分時告知", "{who} asks the scores: ": "{who} 問分：",
  "(stage {n}) ": "（總局分 {n}） ", "fold": "收起", "venue: {command}": "場館：{command}",
  "venue: {command} refused": "場館：{command} 被拒絕",
});
