"""τ²-bench's airline domain (flights, users, reservations), written here from its published
tool specifications and database schema. Field order follows the published schema, so a
result's JSON reads as τ²-bench's; prices and payments are whole dollars, card balances
floats, as there."""

from __future__ import annotations

import copy
from typing import Annotated, Any, Literal, TypeVar, cast

from pydantic import BaseModel, Field

from agentloop.benchmarks.tau2._toolkit import DB, Toolkit, calculate, tau2_tool

__all__ = ["AirlineTools", "FlightDB"]

FlightType = Literal["round_trip", "one_way"]
CabinClass = Literal["business", "economy", "basic_economy"]
Insurance = Literal["yes", "no"]
_BY_CABIN = Annotated[dict[CabinClass, int], Field()]

_TRANSFER = (
    "Transfer the user to a human agent, with a summary of the user's issue.\n\n"
    "Only transfer if\n -  the user explicitly asks for a human agent\n -  given the policy and "
    "the available tools, you cannot solve the user's issue."
)
_PAYMENT_ID = (
    "The payment id stored in user profile, such as 'credit_card_7815826', "
    "'gift_card_7815826', 'certificate_7815826'."
)
_AIRPORTS = (
    ("SFO", "San Francisco"),
    ("JFK", "New York"),
    ("LAX", "Los Angeles"),
    ("ORD", "Chicago"),
    ("DFW", "Dallas"),
    ("DEN", "Denver"),
    ("SEA", "Seattle"),
    ("ATL", "Atlanta"),
    ("MIA", "Miami"),
    ("BOS", "Boston"),
    ("PHX", "Phoenix"),
    ("IAH", "Houston"),
    ("LAS", "Las Vegas"),
    ("MCO", "Orlando"),
    ("EWR", "Newark"),
    ("CLT", "Charlotte"),
    ("MSP", "Minneapolis"),
    ("DTW", "Detroit"),
    ("PHL", "Philadelphia"),
    ("LGA", "LaGuardia"),
)
_NOW = "2024-05-15T15:00:00"  # τ²-bench's fixed clock
_NEW_RESERVATION_IDS = ("HATHAT", "HATHAU", "HATHAV")
_NEW_CERTIFICATE_IDS = (3221322, 3221323, 3221324)


class AirportCode(BaseModel):
    iata: str
    city: str


class Name(BaseModel):
    first_name: str
    last_name: str


class Address(BaseModel):
    address1: str
    address2: str | None = None
    city: str
    country: str
    state: str
    zip: str


class Payment(BaseModel):
    payment_id: str = Field(description="Unique identifier for the payment")
    amount: int = Field(description="Payment amount in dollars")


class PaymentMethodBase(BaseModel):
    source: str
    id: str


class CreditCard(PaymentMethodBase):
    source: Literal["credit_card"]
    brand: str
    last_four: str


class GiftCard(PaymentMethodBase):
    source: Literal["gift_card"]
    amount: float
    id: str


class Certificate(PaymentMethodBase):
    source: Literal["certificate"]
    amount: float


PaymentMethod = Annotated[CreditCard | GiftCard | Certificate, Field(discriminator="source")]


class Passenger(BaseModel):
    first_name: str = Field(description="Passenger's first name")
    last_name: str = Field(description="Passenger's last name")
    dob: str = Field(description="Date of birth in YYYY-MM-DD format")


class StatusAvailable(BaseModel):
    status: Literal["available"]
    available_seats: _BY_CABIN
    prices: _BY_CABIN


class StatusOnTime(BaseModel):
    status: Literal["on time"]
    estimated_departure_time_est: str
    estimated_arrival_time_est: str


class StatusFlying(BaseModel):
    status: Literal["flying"]
    actual_departure_time_est: str
    estimated_arrival_time_est: str


class StatusLanded(BaseModel):
    status: Literal["landed"]
    actual_departure_time_est: str
    actual_arrival_time_est: str


class StatusCancelled(BaseModel):
    status: Literal["cancelled"]


class StatusDelayed(BaseModel):
    status: Literal["delayed"]
    estimated_departure_time_est: str
    estimated_arrival_time_est: str


FlightDateStatus = Annotated[
    StatusAvailable | StatusLanded | StatusCancelled | StatusDelayed | StatusFlying | StatusOnTime,
    Field(discriminator="status"),
]  # tagged by their status (τ²-bench's plain union picks the same member, more slowly)


class FlightBase(BaseModel):
    flight_number: str
    origin: str
    destination: str


class Flight(FlightBase):
    scheduled_departure_time_est: str
    scheduled_arrival_time_est: str
    dates: dict[str, FlightDateStatus]


class DirectFlight(FlightBase):
    status: Literal["available"]
    scheduled_departure_time_est: str
    scheduled_arrival_time_est: str
    date: str | None = None
    available_seats: _BY_CABIN
    prices: _BY_CABIN


class ReservationFlight(FlightBase):
    date: str
    price: int


class FlightInfo(BaseModel):
    flight_number: str = Field(description="Flight number, such as 'HAT001'.")
    date: str = Field(
        description="The date for the flight in the format 'YYYY-MM-DD', such as '2024-05-01'."
    )


class User(BaseModel):
    user_id: str
    name: Name
    address: Address
    email: str
    dob: str
    payment_methods: dict[str, PaymentMethod]
    saved_passengers: list[Passenger]
    membership: Literal["gold", "silver", "regular"]
    reservations: list[str]


class Reservation(BaseModel):
    reservation_id: str
    user_id: str
    origin: str
    destination: str
    flight_type: FlightType
    cabin: CabinClass
    flights: list[ReservationFlight]
    passengers: list[Passenger]
    payment_history: list[Payment]
    created_at: str
    total_baggages: int
    nonfree_baggages: int
    insurance: Insurance
    status: Literal["cancelled"] | None = None


class FlightDB(DB):
    """All flights, users and reservations."""

    flights: dict[str, Flight]
    users: dict[str, User]
    reservations: dict[str, Reservation]


M = TypeVar("M", bound=BaseModel)


def _as_models(items: list[Any], model: type[M]) -> list[M]:
    """Objects given as JSON become models; a list that mixes models and objects is used as
    given, as τ²-bench uses it."""
    if all(isinstance(item, dict) for item in items):
        return [model(**item) for item in items]
    return cast(list[M], items)


class AirlineTools(Toolkit):
    """The airline domain's agent tools."""

    db: FlightDB

    def _get_user(self, user_id: str) -> User:
        if user_id not in self.db.users:
            raise ValueError(f"User {user_id} not found")
        return self.db.users[user_id]

    def _get_reservation(self, reservation_id: str) -> Reservation:
        if reservation_id not in self.db.reservations:
            raise ValueError(f"Reservation {reservation_id} not found")
        return self.db.reservations[reservation_id]

    def _get_flight(self, flight_number: str) -> Flight:
        if flight_number not in self.db.flights:
            raise ValueError(f"Flight {flight_number} not found")
        return self.db.flights[flight_number]

    def _get_flight_instance(self, flight_number: str, date: str) -> FlightDateStatus:
        flight = self._get_flight(flight_number)
        if date not in flight.dates:
            raise ValueError(f"Flight {flight_number} not found on date {date}")
        return flight.dates[date]

    def _direct_flights(
        self,
        date: str,
        origin: str | None = None,
        destination: str | None = None,
        leave_after: str | None = None,
    ) -> list[DirectFlight]:
        found = []
        for flight in self.db.flights.values():
            day = flight.dates.get(date)
            if (
                (origin is None or flight.origin == origin)
                and (destination is None or flight.destination == destination)
                and isinstance(day, StatusAvailable)
                and (leave_after is None or flight.scheduled_departure_time_est >= leave_after)
            ):
                found.append(
                    DirectFlight(
                        flight_number=flight.flight_number,
                        origin=flight.origin,
                        destination=flight.destination,
                        status="available",
                        scheduled_departure_time_est=flight.scheduled_departure_time_est,
                        scheduled_arrival_time_est=flight.scheduled_arrival_time_est,
                        available_seats=day.available_seats,
                        prices=day.prices,
                    )
                )
        return found

    def _pay_update(self, user: User, payment_id: str, total_price: int) -> Payment | None:
        """Charge a change to a stored payment method (certificates are refused)."""
        if payment_id not in user.payment_methods:
            raise ValueError("Payment method not found")
        method = user.payment_methods[payment_id]
        if method.source == "certificate":
            raise ValueError("Certificate cannot be used to update reservation")
        if isinstance(method, GiftCard) and method.amount < total_price:
            raise ValueError("Gift card balance is not enough")
        if isinstance(method, GiftCard):
            method.amount -= total_price
        return Payment(payment_id=payment_id, amount=total_price) if total_price != 0 else None

    @tau2_tool(
        "write",
        "Book a reservation.",
        {
            "user_id": "The ID of the user to book the reservation such as 'sara_doe_496'`.",
            "origin": "The IATA code for the origin city such as 'SFO'.",
            "destination": "The IATA code for the destination city such as 'JFK'.",
            "flight_type": "The type of flight such as 'one_way' or 'round_trip'.",
            "cabin": "The cabin class such as 'basic_economy', 'economy', or 'business'.",
            "flights": "An array of objects containing details about each piece of flight.",
            "passengers": "An array of objects containing details about each passenger.",
            "payment_methods": "An array of objects containing details about each payment method.",
            "total_baggages": "The total number of baggage items to book the reservation.",
            "nonfree_baggages": "The number of non-free baggage items to book the reservation.",
            "insurance": "Whether the reservation has insurance.",
        },
    )
    def book_reservation(
        self,
        user_id: str,
        origin: str,
        destination: str,
        flight_type: FlightType,
        cabin: CabinClass,
        flights: list[FlightInfo | dict],  # type: ignore[type-arg]
        passengers: list[Passenger | dict],  # type: ignore[type-arg]
        payment_methods: list[Payment | dict],  # type: ignore[type-arg]
        total_baggages: int,
        nonfree_baggages: int,
        insurance: Insurance,
    ) -> Reservation:
        flight_infos = _as_models(flights, FlightInfo)
        travellers = _as_models(passengers, Passenger)
        payments = _as_models(payment_methods, Payment)
        user = self._get_user(user_id)
        reservation_id = next(
            (r for r in _NEW_RESERVATION_IDS if r not in self.db.reservations), None
        )
        if reservation_id is None:
            raise ValueError("Too many reservations")
        reservation = Reservation(
            reservation_id=reservation_id,
            user_id=user_id,
            origin=origin,
            destination=destination,
            flight_type=flight_type,
            cabin=cabin,
            flights=[],
            passengers=copy.deepcopy(travellers),
            payment_history=copy.deepcopy(payments),
            created_at=_NOW,
            total_baggages=total_baggages,
            nonfree_baggages=nonfree_baggages,
            insurance=insurance,
        )
        total_price = 0
        booked: list[StatusAvailable] = []
        for info in flight_infos:
            flight = self._get_flight(info.flight_number)
            day = self._get_flight_instance(info.flight_number, info.date)
            if not isinstance(day, StatusAvailable):
                raise ValueError(f"Flight {info.flight_number} not available on date {info.date}")
            if day.available_seats[cabin] < len(travellers):
                raise ValueError(f"Not enough seats on flight {info.flight_number}")
            price = day.prices[cabin]
            reservation.flights.append(
                ReservationFlight(
                    origin=flight.origin,
                    destination=flight.destination,
                    flight_number=info.flight_number,
                    date=info.date,
                    price=price,
                )
            )
            booked.append(day)
            total_price += price * len(travellers)
        if insurance == "yes":
            total_price += 30 * len(travellers)
        total_price += 50 * nonfree_baggages
        for payment in payments:
            if payment.payment_id not in user.payment_methods:
                raise ValueError(f"Payment method {payment.payment_id} not found")
            method = user.payment_methods[payment.payment_id]
            if isinstance(method, (GiftCard, Certificate)) and method.amount < payment.amount:
                raise ValueError(f"Not enough balance in payment method {payment.payment_id}")
        total_payment = sum(p.amount for p in payments)
        if total_payment != total_price:
            raise ValueError(
                f"Payment amount does not add up, total price is {total_price}, "
                f"but paid {total_payment}"
            )
        for payment in payments:
            method = user.payment_methods[payment.payment_id]
            if isinstance(method, GiftCard):
                method.amount -= payment.amount
            elif isinstance(method, Certificate):
                user.payment_methods.pop(payment.payment_id)
        for day in booked:
            day.available_seats[cabin] -= len(travellers)
        self.db.reservations[reservation_id] = reservation
        self.db.users[user_id].reservations.append(reservation_id)
        return reservation

    @tau2_tool(
        "generic",
        "Calculate the result of a mathematical expression.",
        {
            "expression": "The mathematical expression to calculate, such as '2 + 2'. The "
            "expression can contain numbers, operators (+, -, *, /), parentheses, and spaces."
        },
    )
    def calculate(self, expression: str) -> str:
        return calculate(expression)

    @tau2_tool(
        "write",
        "Cancel the whole reservation.",
        {"reservation_id": "The reservation ID, such as 'ZFA04Y'."},
    )
    def cancel_reservation(self, reservation_id: str) -> Reservation:
        reservation = self._get_reservation(reservation_id)
        refunds = [
            Payment(payment_id=p.payment_id, amount=-p.amount) for p in reservation.payment_history
        ]
        reservation.payment_history.extend(refunds)
        reservation.status = "cancelled"
        return reservation  # seats are not released: τ²-bench does not release them

    @tau2_tool(
        "read",
        "Get the details of a reservation.",
        {"reservation_id": "The reservation ID, such as '8JX2WO'."},
    )
    def get_reservation_details(self, reservation_id: str) -> Reservation:
        return self._get_reservation(reservation_id)

    @tau2_tool(
        "read",
        "Get the details of a user, including their reservations.",
        {"user_id": "The user ID, such as 'sara_doe_496'."},
    )
    def get_user_details(self, user_id: str) -> User:
        return self._get_user(user_id)

    @tau2_tool("read", "Returns a list of all available airports.")
    def list_all_airports(self) -> list[AirportCode]:
        return [AirportCode(iata=code, city=city) for code, city in _AIRPORTS]

    @tau2_tool(
        "read",
        "Search for direct flights between two cities on a specific date.",
        {
            "origin": "The origin city airport in three letters, such as 'JFK'.",
            "destination": "The destination city airport in three letters, such as 'LAX'.",
            "date": "The date of the flight in the format 'YYYY-MM-DD', such as '2024-01-01'.",
        },
    )
    def search_direct_flight(self, origin: str, destination: str, date: str) -> list[DirectFlight]:
        return self._direct_flights(date=date, origin=origin, destination=destination)

    @tau2_tool(
        "read",
        "Search for one-stop flights between two cities on a specific date.",
        {
            "origin": "The origin city airport in three letters, such as 'JFK'.",
            "destination": "The destination city airport in three letters, such as 'LAX'.",
            "date": "The date of the flight in the format 'YYYY-MM-DD', such as '2024-05-01'.",
        },
    )
    def search_onestop_flight(
        self, origin: str, destination: str, date: str
    ) -> list[tuple[DirectFlight, DirectFlight]]:
        found: list[list[DirectFlight]] = []
        for first in self._direct_flights(date=date, origin=origin):
            first.date = date
            # the second leg's day: the next day (May 2024) when the first lands after midnight
            date2 = (
                f"2024-05-{int(date[-2:]) + 1}"
                if "+1" in first.scheduled_arrival_time_est
                else date
            )
            for second in self._direct_flights(
                date=date2,
                origin=first.destination,
                destination=destination,
                leave_after=first.scheduled_arrival_time_est,
            ):
                second.date = date2
                found.append([first, second])
        return found  # type: ignore[return-value]  # pairs as lists, as τ²-bench returns them

    @tau2_tool(
        "write",
        "Send a certificate to a user. Be careful!",
        {
            "user_id": "The ID of the user to book the reservation, such as 'sara_doe_496'.",
            "amount": "The amount of the certificate to send.",
        },
    )
    def send_certificate(self, user_id: str, amount: int) -> str:
        user = self._get_user(user_id)
        for number in _NEW_CERTIFICATE_IDS:
            payment_id = f"certificate_{number}"
            if payment_id not in user.payment_methods:
                user.payment_methods[payment_id] = Certificate(
                    id=payment_id, amount=amount, source="certificate"
                )
                return f"Certificate {payment_id} added to user {user_id} with amount {amount}."
        raise ValueError("Too many certificates")

    @tau2_tool("generic", _TRANSFER, {"summary": "A summary of the user's issue."})
    def transfer_to_human_agents(self, summary: str) -> str:
        return "Transfer successful"

    @tau2_tool(
        "write",
        "Update the baggage information of a reservation.",
        {
            "reservation_id": "The reservation ID, such as 'ZFA04Y'",
            "total_baggages": "The updated total number of baggage items included in the "
            "reservation.",
            "nonfree_baggages": "The updated number of non-free baggage items included in the "
            "reservation.",
            "payment_id": _PAYMENT_ID,
        },
    )
    def update_reservation_baggages(
        self, reservation_id: str, total_baggages: int, nonfree_baggages: int, payment_id: str
    ) -> Reservation:
        reservation = self._get_reservation(reservation_id)
        user = self._get_user(reservation.user_id)
        total_price = 50 * max(0, nonfree_baggages - reservation.nonfree_baggages)
        payment = self._pay_update(user, payment_id, total_price)
        if payment is not None:
            reservation.payment_history.append(payment)
        reservation.total_baggages = total_baggages
        reservation.nonfree_baggages = nonfree_baggages
        return reservation

    @tau2_tool(
        "write",
        "Update the flight information of a reservation.",
        {
            "reservation_id": "The reservation ID, such as 'ZFA04Y'.",
            "cabin": "The cabin class of the reservation",
            "flights": "An array of objects containing details about each piece of flight in "
            "the ENTIRE new reservation. Even if the a flight segment is not changed, it should "
            "still be included in the array.",
            "payment_id": _PAYMENT_ID,
        },
    )
    def update_reservation_flights(
        self,
        reservation_id: str,
        cabin: CabinClass,
        flights: list[FlightInfo | dict],  # type: ignore[type-arg]
        payment_id: str,
    ) -> Reservation:
        flight_infos = _as_models(flights, FlightInfo)
        reservation = self._get_reservation(reservation_id)
        user = self._get_user(reservation.user_id)
        travellers = len(reservation.passengers)
        total_price = 0
        kept: list[ReservationFlight] = []
        for info in flight_infos:
            same = next(
                (
                    f
                    for f in reservation.flights
                    if f.flight_number == info.flight_number
                    and f.date == info.date
                    and cabin == reservation.cabin
                ),
                None,
            )
            if same is not None:
                total_price += same.price * travellers
                kept.append(same)
                continue
            flight = self._get_flight(info.flight_number)
            day = self._get_flight_instance(info.flight_number, info.date)
            if not isinstance(day, StatusAvailable):
                raise ValueError(f"Flight {info.flight_number} not available on date {info.date}")
            if day.available_seats[cabin] < travellers:
                raise ValueError(f"Not enough seats on flight {info.flight_number}")
            new = ReservationFlight(
                flight_number=info.flight_number,
                date=info.date,
                price=day.prices[cabin],
                origin=flight.origin,
                destination=flight.destination,
            )
            total_price += new.price * travellers
            kept.append(new)
        total_price -= sum(f.price for f in reservation.flights) * travellers
        payment = self._pay_update(user, payment_id, total_price)
        if payment is not None:
            reservation.payment_history.append(payment)
        reservation.flights = kept
        reservation.cabin = cabin
        return reservation  # seat counts are not updated here, as in τ²-bench

    @tau2_tool(
        "write",
        "Update the passenger information of a reservation.",
        {
            "reservation_id": "The reservation ID, such as 'ZFA04Y'.",
            "passengers": "An array of objects containing details about each passenger.",
        },
    )
    def update_reservation_passengers(
        self,
        reservation_id: str,
        passengers: list[Passenger | dict],  # type: ignore[type-arg]
    ) -> Reservation:
        travellers = _as_models(passengers, Passenger)
        reservation = self._get_reservation(reservation_id)
        if len(travellers) != len(reservation.passengers):
            raise ValueError("Number of passengers does not match")
        reservation.passengers = copy.deepcopy(travellers)
        return reservation

    @tau2_tool(
        "read",
        "Get the status of a flight.",
        {"flight_number": "The flight number.", "date": "The date of the flight."},
    )
    def get_flight_status(self, flight_number: str, date: str) -> str:
        return self._get_flight_instance(flight_number, date).status
