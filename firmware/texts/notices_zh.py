"""The public's words for an alert or a fault in Chinese (issue 16 "Every screen").

Each table here has the keys of its English twin in firmware/texts/notices.py, whose functions
build both languages from them; tests/firmware/display/test_chinese_interface.py fails when a key
lacks its
Chinese. The terms are the rule books' (seeds 003, 004): 錯和, 詐和, 空和, 罰分, 裁判.
"""

SEATS = ("東家", "南家", "西家", "北家")
PHRASES = {
    "table": "本桌",
    "unknown offence": "違規（{name}）",
    "problem": "{what}有問題",
    "some rule": "某條規則",
    "refused": "一項輸入被拒絕",
    "where": "（{article}）",
    "ruling": "，由裁判裁定",
    "alert": "{who}：{what}{where}{ruling}",
    "offline": "{device}離線",
    "reader error": "讀牌器回報錯誤",
    "device fault": "{device}回報故障",  # issue 33: the device's own words behind "details"
    "cleared": "已排除：{what}",
    "see to it": "由裁判處理",
}
UNKNOWN_DEVICE = "裝置"  # a device the vocabulary does not name (its name behind "details")
DEVICES = {
    "tracking": "牌的追蹤",
    "shuffler": "洗牌機",
    "zone reader": "區域讀牌器",
    "stacker reader": "疊牌讀牌器",
    "reader": "讀牌器",
    "table": "牌桌",
    "dice": "骰子",
    "service": "牌桌服務",
    "journal disk": "紀錄磁碟",
    "venue": "場館",
}
OFFENCES = {
    "early_draw": "搶先摸牌",
    "wrong_count_high": "牌數過多（大相公）",
    "wrong_count_low": "牌數過少（小相公）",
    "empty_call": "叫牌卻沒有相應的牌",
    "wrong_call": "叫錯牌",
    "empty_kong": "槓牌卻沒有相應的牌",
    "false_win": "詐和",
    "incomplete_win": "錯和",
    "empty_win": "叫和後收回（空和）",
    "intentional_false_win": "有意詐和",
    "late_call": "叫牌時機已過才叫牌",
    "late_pung": "碰牌過遲",
    "kong_after_last_tile": "最後一張牌之後槓牌",
    "penalty_tile_discard": "打出已死的罰牌",
    "flower_discarded": "打出花牌",
    "naming_discard": "打牌時報出牌名",
    "laying_down_early": "過早攤牌",
    "overtime_discard": "出牌超時",
    "overtime_hand": "本盤超時",
    "serious_overtime": "嚴重超時",
    "wrong_draw": "從牌牆錯誤位置摸牌",
    "wrong_draw_win": "以從錯誤位置摸到的牌和牌",
    "timeout": "要求暫停",
    "late": "遲到",
    "left_table": "暫停時離開牌桌",
    "absent": "缺席",
    "phone": "手機發出聲響",
    "refused_interview": "拒絕採訪",
    "exposing_opponent": "翻看他人的牌",
    "exposed": "露出手中的牌",
    "exposed_at_deal": "配牌時露出牌",
    "wall_tile_exposed": "翻開牌牆上的牌",
    "penalty_tile_kept": "保留應打出的罰牌",
    "suspicious_gestures": "做出可疑的手勢",
    "cheating": "作弊（偷牌、藏牌或換牌）",
    "signalling": "向他人打暗號",
    "disruption": "嚴重干擾比賽",
}
SECTIONS = {
    "1.3": "付分",
    "3.1": "花牌",
    "3.4": "擲骰或從牌牆摸牌",
    "3.5": "牌牆的最後幾張牌",
    "3.6": "行牌次序",
    "3.7": "叫牌",
    "3.9": "罰牌",
    "3.10": "手中牌數",
    "3.11": "叫牌或和牌",
    "3.12": "時間限制",
    "4.4": "擲骰或從牌牆摸牌",
    "4.5": "花牌",
    "4.6": "行牌次序或叫牌",
    "4.7": "和牌",
    "4.9": "最後一張牌",
    "4.11": "向無籌碼的選手和牌",
    "4.13": "比賽結束",
    "4.14": "時間限制",
    "4.15": "罰分",
}
RULED = {
    "3.4": "摸了牌牆中沒有的牌",
    "4.4": "摸了牌牆中沒有的牌",
}
FAULTS = {
    ("tracking", "missing"): "桌上有一張牌不見了",
    ("tracking", "two_places"): "一張牌在兩個位置被讀到",
    ("tracking", "foreign"): "桌上有一張不屬於本桌牌組的牌",
    ("tracking", "unexpected_tile"): "桌下那副牌的一張牌出現在桌上",
    ("tracking", "jump"): "一張牌未經逐步讀取就移動了",
    ("tracking", "irregular"): "一張牌的移動無法以本盤任何動作解釋",
    ("tracking", "tampering"): "摸到的牌不是牌牆該位置的牌",
    ("shuffler", "favoured"): "洗牌機砌的牌牆偏向某一方",
    ("shuffler", "clustered"): "洗牌機砌的牌牆同類牌聚集",
    ("table", "forfeit"): "一位選手的暫停次數已達棄權",
    ("shuffler", "jam"): "洗牌機卡住了",
    ("shuffler", "count"): "一道牌牆升起時牌數不對",
    ("shuffler", "timeout"): "洗牌機的一個步驟耗時過長",
    ("shuffler", "slow"): "洗牌機運轉緩慢",
    ("shuffler", "stacker"): "牌牆未經讀取就已砌好",
    ("table", "referee"): "有選手呼叫裁判",
    ("table", "raise refused"): "桌上有牌局進行時牌牆不可升起",
    ("table", "hall paused"): "場館已暫停全場：下一盤等待恢復",
    ("table", "time up"): "本節時間已到：不再開始新的一盤",
    ("dice", "bad roll"): "骰子讀取錯誤",
    ("service", "internal"): "牌桌服務發生錯誤",
    ("journal disk", "low space"): "牌桌磁碟的紀錄空間即將用完",
    ("venue", "refused"): "牌桌拒絕了場館的一項指令",
    ("reader", "stray buttons"): "讀牌器送來本桌不採用的座位按鈕",
}
ADVICE = {
    "tracking": "裁判檢查牌",
    "shuffler": "技術人員處理洗牌機",
    "zone reader": "牌局等待讀牌器",
    "stacker reader": "技術人員檢查讀牌器",
    "reader": "技術人員檢查讀牌器",
    "table": "由裁判處理",
    "dice": "重新擲骰",
    "service": "牌局在裁判控制下繼續",
    "journal disk": "技術人員處理牌桌磁碟",
    "venue": "裁判與場館服務台一同處理",
}
SHUFFLER_FAULT = "洗牌機已停止：由技術人員處理"
NOT_REFEREEING = {
    "disk full": "牌桌磁碟已滿：無法記錄比賽，因此不再執裁",
    "write error": "牌桌磁碟故障：無法記錄比賽，因此不再執裁",
}
STOPPED_ADVICE = {
    False: "停止比賽：裁判呼叫技術人員",
    True: "停止比賽並呼叫技術人員：此後不再執裁或記錄；紀錄保存了本盤至故障時為止的內容",
}
