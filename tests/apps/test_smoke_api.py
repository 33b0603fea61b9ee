"""A first end-to-end check through Django's test client with a mocked Yahoo."""


def test_historical_from_recording(api, yahoo, recording):
    yahoo.chart("AAPL", recording("yahoo/v8-chart/chart-AAPL-2020-08-31-to-2020-11-07.json"))
    response = api.get("/v1/historical?symbol=AAPL&range=3mo&interval=1d")
    assert response.status_code == 200
    body = response.json()
    first_key = next(iter(body))
    assert first_key == "2020-11-06"
    assert body["2020-11-06"]["close"] == 118.69
    assert response["X-Cache"] == "MISS"
    assert response["X-Correlation-ID"]
