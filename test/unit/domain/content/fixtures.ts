// Hand-written article texts for near-duplicate tests: the kind of main text a parser returns.

export const ARTICLE = `City council approves new cycling lanes along the river.
Posted 2024-05-01T10:30:00Z by Maria Lopez. Updated 3 minutes ago.
The city council voted on Tuesday evening to approve a network of protected cycling lanes along
both banks of the river, ending a debate that had lasted almost two years. The plan adds eleven
kilometres of separated lanes, new crossings at four busy junctions and a bicycle parking hub
next to the central station. Supporters argued that the lanes would make the daily commute safer
for thousands of residents who already ride to work, and that the river route is flat, scenic and
largely free of delivery traffic. Shop owners on the east bank raised concerns about losing parking
spaces in front of their stores, and the council agreed to a trial period in which loading bays
will be kept open in the early morning. Construction is expected to begin in the autumn and to be
finished before the end of next year, weather permitting. The transport department will publish
monthly progress reports and hold public meetings in each district before work starts there.
Residents can comment on the detailed drawings until the end of the month through the city website
or at the library, where printed copies are available during opening hours.
A spokesperson for the transport department said that separating cyclists from pedestrians on the
riverside path would also reduce the number of collisions reported every summer, when the path is
crowded with families, runners and tourists. Several councillors asked for a plan to limit the
disruption caused by bus diversions during construction, and the department promised temporary
stops and extra staff at the busiest corners. Environmental groups welcomed the decision as a first
step towards cleaner air in the city centre and fewer short car journeys. The city also intends to
open twenty more stations for its public bicycle hire scheme along the new lanes, and rental prices
will stay at their current level. Speaking to reporters after the vote, the mayor said the council
would keep listening to residents until the very last lane is painted.
Advertisement: Summer sale on garden furniture, up to 40 percent off this weekend only.`;

/** Same article minutes later: new timestamps, a different ad line, a fresh CSRF token. */
export const ARTICLE_LATER = ARTICLE.replace('Posted 2024-05-01T10:30:00Z', 'Posted 2024-05-01T10:30:00Z')
  .replace('Updated 3 minutes ago.', 'Updated 17 minutes ago. Session 6f1c2ab94e0d7f3a8b5c')
  .replace(
    'Advertisement: Summer sale on garden furniture, up to 40 percent off this weekend only.',
    'Advertisement: Book cheap flights to sunny islands and save on hotels today.',
  );

export const UNRELATED = `Recipe: slow roasted tomatoes with garlic and thyme.
Heat the oven to a low temperature and cut ripe tomatoes in half lengthwise. Arrange them cut side
up on a tray lined with baking paper, scatter sliced garlic and a few sprigs of fresh thyme over
the top, season with salt, pepper and a pinch of sugar, and drizzle generously with olive oil.
Roast for about three hours until the tomatoes have shrunk, their edges have caramelised and the
kitchen smells wonderful. Let them cool on the tray before packing them into a clean jar and
covering them with more oil. They keep for a week in the fridge and are delicious on toast, stirred
through pasta, blended into a quick sauce or served next to grilled fish. If you grow your own
tomatoes, this is a good way to use a large harvest at the end of summer, and the flavoured oil left
in the jar makes an excellent dressing for salads and roasted vegetables during the colder months.`;

export const KOREAN_ARTICLE = `시의회, 강변 자전거 전용도로 신설안 통과
2024년 5월 1일 오후 3시 5분 입력
시의회는 화요일 저녁 회의에서 강 양쪽을 따라 보호형 자전거 전용도로망을 만드는 계획을 승인했다.
이번 계획은 분리형 자전거 도로 11킬로미터와 혼잡한 교차로 네 곳의 새 횡단보도, 중앙역 옆 자전거 주차
시설을 포함한다. 찬성 측은 이미 자전거로 출퇴근하는 수천 명의 주민이 더 안전하게 이동할 수 있고 강변
경로는 평탄하며 배송 차량이 적다고 주장했다. 동쪽 강변의 상인들은 가게 앞 주차 공간이 줄어드는 것을
우려했고, 시의회는 이른 아침에는 하역 공간을 유지하는 시범 기간을 두기로 했다. 공사는 가을에 시작해
내년 말 이전에 끝날 예정이며 교통국은 매달 진행 상황을 공개하고 각 구에서 공청회를 열 계획이다.
주민들은 이달 말까지 시 누리집이나 도서관에서 상세 도면을 확인하고 의견을 낼 수 있다. 도서관에는 운영
시간 동안 인쇄본이 비치된다. 교통국 관계자는 자전거 도로가 완공되면 강변을 따라 걷는 보행자와 자전거
이용자가 서로 부딪히는 일이 크게 줄어들 것이라고 설명했다. 일부 시의원은 공사 기간 동안 버스 노선이
우회하면서 생길 불편을 줄이기 위한 대책이 필요하다고 지적했고, 교통국은 임시 정류장을 마련하고 안내
요원을 배치하겠다고 답했다. 환경 단체들은 이번 결정이 도심의 대기 질을 개선하고 자동차 이용을 줄이는
첫걸음이 될 것이라며 환영의 뜻을 밝혔다. 시는 자전거 도로와 연결되는 공공 자전거 대여소도 스무 곳 더
늘릴 계획이며, 대여 요금은 현재와 같은 수준으로 유지할 방침이다. 시장은 표결 직후 기자들과 만나 시민의
의견을 끝까지 듣겠다고 말했다.
광고: 이번 주말 한정 정원 가구 최대 40퍼센트 할인.`;

export const KOREAN_LATER = KOREAN_ARTICLE.replace('2024년 5월 1일 오후 3시 5분 입력', '2024년 5월 1일 오후 4시 45분 수정').replace(
  '광고: 이번 주말 한정 정원 가구 최대 40퍼센트 할인.',
  '광고: 제주 항공권 특가, 오늘만 숙박 최대 할인.',
);
