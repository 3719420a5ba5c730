import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ApiError } from '../api/client';
import type { PaginatedList } from '../hooks';
import { PaginatedTable, type PaginatedTableProps } from './PaginatedTable';

interface Fruit {
  id: number;
  name: string;
}

function makeList(overrides: Partial<PaginatedList<Fruit>> = {}): PaginatedList<Fruit> {
  return {
    items: [],
    count: 0,
    page: 1,
    pageSize: 25,
    loading: false,
    error: null,
    setPage: vi.fn(),
    reload: vi.fn(),
    update: vi.fn(),
    ...overrides,
  };
}

function renderTable(list: PaginatedList<Fruit>, props: Partial<PaginatedTableProps<Fruit>> = {}) {
  return render(
    <PaginatedTable
      list={list}
      columns={['Name', 'Colour']}
      loadingLabel="Loading fruit…"
      emptyText="No fruit yet."
      renderRow={(fruit) => (
        <tr key={fruit.id}>
          <td>{fruit.name}</td>
          <td>green</td>
        </tr>
      )}
      {...props}
    />,
  );
}

describe('<PaginatedTable>', () => {
  it('shows a spinner on the first load, without a table', () => {
    renderTable(makeList({ loading: true }));

    expect(screen.getByRole('status').textContent).toContain('Loading fruit…');
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('keeps the rows on screen while it reloads', () => {
    renderTable(makeList({ loading: true, items: [{ id: 1, name: 'Apple' }], count: 1 }));

    expect(screen.getByRole('cell', { name: 'Apple' })).toBeTruthy();
    expect(screen.queryByText('Loading fruit…')).toBeNull();
  });

  it('shows the empty row across every column, the actions column included', () => {
    renderTable(makeList(), { withActions: true });

    const headers = screen.getAllByRole('columnheader').map((th) => th.textContent);
    expect(headers).toEqual(['Name', 'Colour', 'Actions']);
    const empty = screen.getByText('No fruit yet.');
    expect(empty.className).toBe('table__empty');
    expect(empty.getAttribute('colspan')).toBe('3');
  });

  it('renders one row per item', () => {
    renderTable(makeList({ items: [{ id: 1, name: 'Apple' }, { id: 2, name: 'Pear' }], count: 2 }));

    expect(screen.getAllByRole('row')).toHaveLength(3);
    expect(screen.getByRole('cell', { name: 'Pear' })).toBeTruthy();
    expect(screen.queryByText('No fruit yet.')).toBeNull();
  });

  it('shows the load error with a retry instead of the table', async () => {
    const list = makeList({ error: new ApiError(500, 'server_error', 'Something broke on our side.') });
    const user = userEvent.setup();
    renderTable(list);

    expect(screen.getByRole('alert').textContent).toContain('Something broke on our side.');
    expect(screen.queryByRole('table')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(list.reload).toHaveBeenCalledTimes(1);
  });

  it('shows the notice and the error of a row action above the table', () => {
    renderTable(makeList(), { notice: 'Apple removed.', actionError: 'Pear is in use.' });

    expect(screen.getByRole('status').textContent).toBe('Apple removed.');
    expect(screen.getByRole('alert').textContent).toBe('Pear is in use.');
    expect(screen.getByRole('table')).toBeTruthy();
  });

  it('pages through a list longer than a page', async () => {
    const list = makeList({ items: [{ id: 1, name: 'Apple' }], count: 30 });
    const user = userEvent.setup();
    renderTable(list);

    expect(screen.getByText('Page 1 of 2')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(list.setPage).toHaveBeenCalledWith(2);
  });

  it('shows no pagination when everything fits on one page', () => {
    renderTable(makeList({ items: [{ id: 1, name: 'Apple' }], count: 1 }));

    expect(screen.queryByRole('navigation', { name: 'Pagination' })).toBeNull();
  });
});
